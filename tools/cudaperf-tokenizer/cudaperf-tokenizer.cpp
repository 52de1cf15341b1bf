// cudaperf-tokenizer: train a byte-level BPE tokenizer on source files, encode and decode with any
// supported tokenizer.json, measure encoding speed. No LibTorch. docs/tokenizer.md.
#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Support/ArgParser.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace fs = std::filesystem;
using namespace cudaperf::learn;
namespace support = cudaperf::support;

namespace {

constexpr int kOk = 0, kFailed = 1, kUsage = 2;

const char *kUsageText = R"(usage:
  cudaperf-tokenizer train --out DIR --vocab N [--min-frequency N] [--ext LIST] FILE|DIR...
      train a byte-level BPE tokenizer of Qwen2's form on the files (directories: their files
      with the extensions in LIST, default .cu,.cuh,.c,.h,.cc,.cpp,.hpp,.py); writes
      DIR/tokenizer.json and DIR/tokenizer_config.json (ChatML template; special tokens
      <|endoftext|> <|im_start|> <|im_end|> <|pad|>, ids 0-3)
  cudaperf-tokenizer encode --tokenizer PATH [--no-special] [--tokens] FILE|-
      the ids of FILE (- for standard input) as {"schema": "cudaperf-tokens/1", "count", "ids"}
  cudaperf-tokenizer decode --tokenizer PATH [--skip-special] --ids 1,2,3
      the text of the ids
  cudaperf-tokenizer bench --tokenizer PATH [--repeat N] [--ext LIST] FILE|DIR...
      encoding speed on the files: first pass (empty cache) and the best of N more
PATH is a tokenizer.json or a directory holding one; cudaperf-tokenizer COMMAND --help lists a
command's options.
exit status: 0 done, 1 an input could not be read or tokenized, 2 bad usage
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr const char *kDefaultExtensions = ".cu,.cuh,.c,.h,.cc,.cpp,.hpp,.py";

struct Arguments {
  std::string command;
  std::vector<std::string> positional;
  std::string out, tokenizer, ids, extensions = kDefaultExtensions;
  size_t vocab = 0, minFrequency = BpeTrainingOptions().minFrequency, repeat = 5;
  bool noSpecial = false, tokens = false, skipSpecial = false;

  const std::string &required(const std::string &value, const char *option) const {
    if (value.empty())
      throw UsageError(command + " needs " + option);
    return value;
  }
};

// One parser per command, so each --help lists only the options that command reads.
support::ArgParser commandParser(Arguments &a) {
  const std::string program = "cudaperf-tokenizer " + a.command;
  const auto tokenizerOption = [&](support::ArgParser &p) -> support::ArgParser & {
    return p.option("--tokenizer", "PATH", "a tokenizer.json, or a directory holding one", a.tokenizer);
  };
  const auto extensionsOption = [&](support::ArgParser &p) -> support::ArgParser & {
    return p.option("--ext", "LIST", std::string("extensions of the files read in directories (default ") +
                                         kDefaultExtensions + ")", a.extensions);
  };
  if (a.command == "train") {
    support::ArgParser p(program, {"--out DIR --vocab N [options] FILE|DIR..."},
                         "Trains a byte-level BPE tokenizer of Qwen2's form on the files and writes\n"
                         "DIR/tokenizer.json and DIR/tokenizer_config.json (ChatML template; special tokens\n"
                         "<|endoftext|> <|im_start|> <|im_end|> <|pad|>, ids 0-3).");
    p.option("--out", "DIR", "where to write the two files (created if needed)", a.out)
        .option("--vocab", "N", "vocabulary size, special tokens and the 256 byte symbols included",
                [&](const std::string &v) { a.vocab = support::parseUnsigned(v); })
        .option("--min-frequency", "N", "merge no pair seen fewer times (default 2)",
                [&](const std::string &v) { a.minFrequency = support::parseUnsigned(v); });
    return std::move(extensionsOption(p));
  }
  if (a.command == "encode") {
    support::ArgParser p(program, {"--tokenizer PATH [--no-special] [--tokens] FILE|-"},
                         "Prints the ids of FILE (- for standard input) as one JSON document:\n"
                         "{\"schema\": \"cudaperf-tokens/1\", \"count\": N, \"ids\": [...]}.");
    tokenizerOption(p)
        .flag("--no-special", "without the post-processor's template tokens (Llama 3's BOS)", a.noSpecial)
        .flag("--tokens", "the token strings too (\"tokens\": [...])", a.tokens);
    return p;
  }
  if (a.command == "decode") {
    support::ArgParser p(program, {"--tokenizer PATH [--skip-special] --ids 1,2,3"}, "Prints the text of the ids.");
    tokenizerOption(p)
        .option("--ids", "LIST", "ids separated by commas", a.ids)
        .flag("--skip-special", "leave out special tokens", a.skipSpecial);
    return p;
  }
  if (a.command == "bench") {
    support::ArgParser p(program, {"--tokenizer PATH [--repeat N] [--ext LIST] FILE|DIR..."},
                         "Encoding speed on the files, one thread: the first pass (empty cache) and the best\n"
                         "of N more.");
    tokenizerOption(p).option("--repeat", "N", "passes after the first (default 5)",
                              [&](const std::string &v) { a.repeat = support::parseUnsigned(v); });
    return std::move(extensionsOption(p));
  }
  throw UsageError("unknown command \"" + a.command + "\"");
}

std::string readInput(const std::string &path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw TokenizerError("cannot read " + path + ": " + std::strerror(errno));
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> extensionList(const Arguments &args) {
  std::vector<std::string> list;
  std::stringstream in(args.extensions);
  for (std::string ext; std::getline(in, ext, ',');)
    if (!ext.empty())
      list.push_back(ext[0] == '.' ? ext : "." + ext);
  return list;
}

// The files named, and the files under the directories named (sorted, so that training does not
// depend on the order directories list their entries in).
std::vector<std::string> gatherFiles(const Arguments &args) {
  if (args.positional.empty())
    throw UsageError(args.command + " needs at least one file or directory");
  const std::vector<std::string> extensions = extensionList(args);
  std::vector<std::string> files;
  for (const std::string &path : args.positional) {
    std::error_code error;
    if (!fs::is_directory(path, error)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_regular_file(error) &&
          std::find(extensions.begin(), extensions.end(), it->path().extension().string()) != extensions.end())
        found.push_back(it->path().string());
    }
    if (error)
      throw TokenizerError("cannot list " + path + ": " + error.message());
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

int train(const Arguments &args) {
  const std::string out = args.required(args.out, "--out DIR");
  BpeTrainingOptions options;
  options.vocabSize = args.vocab;
  if (options.vocabSize == 0)
    throw UsageError("train needs --vocab N");
  options.minFrequency = args.minFrequency;
  options.progress = [](const std::string &line) { std::cerr << "cudaperf-tokenizer: " << line << "\n"; };
  std::vector<std::string> texts;
  for (const std::string &file : gatherFiles(args))
    texts.push_back(readInput(file));
  std::cerr << "cudaperf-tokenizer: training on " << texts.size() << " files\n";
  const Tokenizer tokenizer = trainByteLevelBpe(texts, options);
  saveTokenizerDirectory(tokenizer, out);
  std::cerr << "cudaperf-tokenizer: wrote " << (fs::path(out) / "tokenizer.json").string() << " and "
            << (fs::path(out) / "tokenizer_config.json").string() << " (" << tokenizer.vocabSize() << " tokens)\n";
  return kOk;
}

int encode(const Arguments &args) {
  if (args.positional.size() != 1)
    throw UsageError("encode takes one FILE (or - for standard input)");
  const Tokenizer tokenizer = Tokenizer::fromFile(args.required(args.tokenizer, "--tokenizer PATH"));
  TokensJsonOptions options;
  options.addSpecialTokens = !args.noSpecial;
  options.withTokens = args.tokens;
  std::cout << encodeToJson(tokenizer, readInput(args.positional[0]), options) << "\n";
  return kOk;
}

int decode(const Arguments &args) {
  std::vector<int32_t> ids;
  std::stringstream in(args.required(args.ids, "--ids LIST"));
  for (std::string item; std::getline(in, item, ',');) {
    char *end = nullptr;
    errno = 0;
    const long id = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || errno || id < 0 || id > INT32_MAX)
      throw UsageError("--ids expects ids separated by commas, not \"" + item + "\"");
    ids.push_back(static_cast<int32_t>(id));
  }
  const Tokenizer tokenizer = Tokenizer::fromFile(args.required(args.tokenizer, "--tokenizer PATH"));
  std::cout << tokenizer.decode(ids, args.skipSpecial);
  return kOk;
}

int bench(const Arguments &args) {
  const Tokenizer tokenizer = Tokenizer::fromFile(args.required(args.tokenizer, "--tokenizer PATH"));
  const size_t repeat = std::max<size_t>(1, args.repeat);
  std::vector<std::string> texts;
  size_t bytes = 0;
  for (const std::string &file : gatherFiles(args)) {
    texts.push_back(readInput(file));
    bytes += texts.back().size();
  }
  using Clock = std::chrono::steady_clock;
  const auto pass = [&](size_t &tokens) {
    tokens = 0;
    const auto start = Clock::now();
    for (const std::string &text : texts)
      tokens += tokenizer.encode(text).size();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  size_t tokens = 0;
  const double cold = pass(tokens);
  double best = cold;
  for (size_t i = 0; i < repeat; ++i)
    best = std::min(best, pass(tokens));
  std::printf("files %zu, bytes %zu, tokens %zu (%.2f bytes/token)\n", texts.size(), bytes, tokens,
              tokens ? static_cast<double>(bytes) / static_cast<double>(tokens) : 0.0);
  std::printf("first pass  %.3f s  %.0f tokens/s  %.2f MB/s\n", cold, tokens / cold, bytes / cold / 1e6);
  std::printf("best of %zu  %.3f s  %.0f tokens/s  %.2f MB/s\n", repeat, best, tokens / best, bytes / best / 1e6);
  return kOk;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    (argc < 2 ? std::cerr : std::cout) << kUsageText;
    return argc < 2 ? kUsage : kOk;
  }
  Arguments args;
  args.command = argv[1];
  try {
    const support::ArgParser parser = commandParser(args);
    try {
      const support::ParsedArgs parsed = parser.parse(argc - 1, argv + 1);
      if (parsed.helpRequested) {
        std::cout << parser.help();
        return kOk;
      }
      args.positional = parsed.positional;
    } catch (const support::SupportError &e) {
      std::cerr << parser.program() << ": " << e.what() << "\n" << parser.usageHint();
      return kUsage;
    }
    if (args.command == "train")
      return train(args);
    if (args.command == "encode")
      return encode(args);
    if (args.command == "decode")
      return decode(args);
    return bench(args);
  } catch (const UsageError &e) {
    std::cerr << "cudaperf-tokenizer: " << e.what() << "\n" << kUsageText;
    return kUsage;
  } catch (const TokenizerError &e) {
    std::cerr << "cudaperf-tokenizer: " << e.what() << "\n";
    return kFailed;
  } catch (const std::exception &e) { // out of memory and the like
    std::cerr << "cudaperf-tokenizer: " << e.what() << "\n";
    return kFailed;
  }
}
