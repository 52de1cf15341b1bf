// cudaperf-tokenizer: train a byte-level BPE tokenizer on source files, encode and decode with any
// supported tokenizer.json, measure encoding speed. No LibTorch. docs/tokenizer.md.
#include "cudaperf/Learn/Tokenizer.h"

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
PATH is a tokenizer.json or a directory holding one.
exit status: 0 done, 1 an input could not be read or tokenized, 2 bad usage
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Arguments {
  std::string command;
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> options; // --name value
  std::vector<std::string> flags;                           // --name

  bool has(const std::string &flag) const { return std::count(flags.begin(), flags.end(), flag) > 0; }
  std::optional<std::string> value(const std::string &name) const {
    for (const auto &[key, v] : options)
      if (key == name)
        return v;
    return std::nullopt;
  }
  std::string required(const std::string &name) const {
    if (auto v = value(name))
      return *v;
    throw UsageError(command + " needs " + name);
  }
  size_t number(const std::string &name, size_t byDefault) const {
    const auto v = value(name);
    if (!v)
      return byDefault;
    char *end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(v->c_str(), &end, 10);
    if (v->empty() || *end || errno || (*v)[0] == '-')
      throw UsageError(name + " expects a whole number, not \"" + *v + "\"");
    return static_cast<size_t>(n);
  }
};

Arguments parse(int argc, char **argv) {
  static const std::vector<std::string> valued = {"--out", "--vocab", "--min-frequency", "--ext",
                                                  "--tokenizer", "--ids", "--repeat"};
  static const std::vector<std::string> plain = {"--no-special", "--tokens", "--skip-special"};
  Arguments args;
  if (argc < 2)
    throw UsageError("no command given");
  args.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (std::find(valued.begin(), valued.end(), arg) != valued.end()) {
      if (i + 1 >= argc)
        throw UsageError(arg + " needs a value");
      args.options.emplace_back(arg, argv[++i]);
    } else if (std::find(plain.begin(), plain.end(), arg) != plain.end())
      args.flags.push_back(arg);
    else if (arg.size() > 1 && arg[0] == '-' && arg != "-")
      throw UsageError("unknown option " + arg);
    else
      args.positional.push_back(arg);
  }
  return args;
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
  std::stringstream in(args.value("--ext").value_or(".cu,.cuh,.c,.h,.cc,.cpp,.hpp,.py"));
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
  const std::string out = args.required("--out");
  BpeTrainingOptions options;
  options.vocabSize = args.number("--vocab", 0);
  if (options.vocabSize == 0)
    throw UsageError("train needs --vocab N");
  options.minFrequency = args.number("--min-frequency", options.minFrequency);
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
  const Tokenizer tokenizer = Tokenizer::fromFile(args.required("--tokenizer"));
  TokensJsonOptions options;
  options.addSpecialTokens = !args.has("--no-special");
  options.withTokens = args.has("--tokens");
  std::cout << encodeToJson(tokenizer, readInput(args.positional[0]), options) << "\n";
  return kOk;
}

int decode(const Arguments &args) {
  std::vector<int32_t> ids;
  std::stringstream in(args.required("--ids"));
  for (std::string item; std::getline(in, item, ',');) {
    char *end = nullptr;
    errno = 0;
    const long id = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || errno || id < 0 || id > INT32_MAX)
      throw UsageError("--ids expects ids separated by commas, not \"" + item + "\"");
    ids.push_back(static_cast<int32_t>(id));
  }
  const Tokenizer tokenizer = Tokenizer::fromFile(args.required("--tokenizer"));
  std::cout << tokenizer.decode(ids, args.has("--skip-special"));
  return kOk;
}

int bench(const Arguments &args) {
  const Tokenizer tokenizer = Tokenizer::fromFile(args.required("--tokenizer"));
  const size_t repeat = std::max<size_t>(1, args.number("--repeat", 5));
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
  if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::cout << kUsageText;
    return kOk;
  }
  try {
    const Arguments args = parse(argc, argv);
    if (args.command == "train")
      return train(args);
    if (args.command == "encode")
      return encode(args);
    if (args.command == "decode")
      return decode(args);
    if (args.command == "bench")
      return bench(args);
    throw UsageError("unknown command \"" + args.command + "\"");
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
