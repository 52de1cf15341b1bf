// tokenizer_config.json beside a trained tokenizer.json, with what transformers' AutoTokenizer
// reads from it: the class (the generic fast tokenizer, which takes tokenizer.json as it is), the
// roles of the special tokens, the chat template. Keys that would make transformers rewrite the
// pipeline (add_prefix_space) or the decoded text (clean_up_tokenization_spaces) are set or left out
// so that it tokenizes exactly as tokenizer.json says.
#include "cudaperf/Learn/Tokenizer.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace cudaperf::learn {

std::string tokenizerConfigJson(const Tokenizer &tokenizer, const TokenizerConfigOptions &options) {
  using Json = nlohmann::ordered_json;
  const auto role = [&](const char *name, const std::optional<std::string> &token) -> Json {
    if (!token)
      return nullptr;
    const auto id = tokenizer.tokenToId(*token);
    if (!id || !tokenizer.isSpecial(*id))
      throw TokenizerError(std::string(name) + " \"" + *token + "\" is not a special token of the tokenizer");
    return *token;
  };
  Json decoder = Json::object();
  for (const AddedToken &token : tokenizer.addedTokens())
    decoder[std::to_string(token.id)] = {{"content", token.content}, {"lstrip", token.lstrip},
                                         {"normalized", token.normalized}, {"rstrip", token.rstrip},
                                         {"single_word", token.singleWord}, {"special", token.special}};
  Json config;
  config["added_tokens_decoder"] = std::move(decoder);
  config["bos_token"] = role("bos_token", options.bosToken);
  config["chat_template"] = kChatMlTemplate;
  config["clean_up_tokenization_spaces"] = false;
  config["eos_token"] = role("eos_token", options.eosToken);
  config["model_max_length"] = options.modelMaxLength;
  config["pad_token"] = role("pad_token", options.padToken);
  config["split_special_tokens"] = false;
  config["tokenizer_class"] = "PreTrainedTokenizerFast";
  config["unk_token"] = nullptr;
  return config.dump(2) + "\n";
}

namespace {
void writeText(const std::filesystem::path &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out)
    throw TokenizerError("cannot write " + path.string() + ": " + std::strerror(errno));
}
} // namespace

void saveTokenizerDirectory(const Tokenizer &tokenizer, const std::string &directory,
                            const TokenizerConfigOptions &options) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error)
    throw TokenizerError("cannot create " + directory + ": " + error.message());
  const std::string config = tokenizerConfigJson(tokenizer, options); // checks the roles first
  writeText(std::filesystem::path(directory) / "tokenizer.json", tokenizer.toJson());
  writeText(std::filesystem::path(directory) / "tokenizer_config.json", config);
}

} // namespace cudaperf::learn
