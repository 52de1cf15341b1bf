// The learning stack's tokenizer: Hugging Face tokenizer.json files of the byte-level BPE family
// (GPT-2, Qwen2, Llama 3 and the ones trainByteLevelBpe writes), read and written here without
// Python, with the ids Hugging Face tokenizers gives (test/learn/fixtures/tokenizer replays them).
// The supported subset, and what is refused, is listed in docs/tokenizer.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf::learn {

// Every failure of this library: a tokenizer.json field that is missing, malformed or not
// supported (the message names the field and the value), an unreadable file, bad options.
class TokenizerError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A token of tokenizer.json's added_tokens, with the matching rules Hugging Face gives it.
struct AddedToken {
  int32_t id = -1;
  std::string content;
  bool singleWord = false; // only where no word character touches it
  bool lstrip = false;     // takes the whitespace before it
  bool rstrip = false;     // takes the whitespace after it
  bool normalized = true;  // matched in the normalized text (else in the raw text, first)
  bool special = false;    // skipped by decode(ids, skipSpecial=true)
};

class Tokenizer {
public:
  // A tokenizer.json file, or a directory that holds one (a Hugging Face checkpoint folder).
  static Tokenizer fromFile(const std::string &tokenizerJsonPath);
  static Tokenizer fromJson(const std::string &tokenizerJsonText);

  // The ids of `text` (UTF-8; invalid sequences are read as U+FFFD, as Python's
  // errors="replace" does). Added and special tokens written in the text are matched.
  // addSpecialTokens applies the post-processor's template (Llama 3's <|begin_of_text|>; Qwen2
  // adds none), as Hugging Face's encode(text, add_special_tokens=True) does by default.
  std::vector<int32_t> encode(std::string_view text, bool addSpecialTokens = true) const;
  // Ids without a token (an embedding padded past the vocabulary) are skipped, as in Hugging Face.
  std::string decode(const std::vector<int32_t> &ids, bool skipSpecial = false) const;

  // The pre-tokenizer alone (no normalizer, no added tokens), as Hugging Face's
  // pre_tokenizer.pre_tokenize_str: pieces in the byte-level alphabet where it ends with ByteLevel.
  std::vector<std::string> preTokenize(std::string_view text) const;

  std::optional<int32_t> tokenToId(std::string_view token) const; // vocabulary or added token
  std::string idToToken(int32_t id) const;                         // throws for an id without token
  bool isSpecial(int32_t id) const;                                // an added token marked special
  std::vector<AddedToken> addedTokens() const;                     // by id
  // One more than the largest id, added tokens included: the embedding rows a model needs
  // (the number of tokens when ids are contiguous, as in every file trainByteLevelBpe writes).
  size_t vocabSize() const;

  // tokenizer.json, loadable by Hugging Face tokenizers / transformers: the document this
  // tokenizer was read from, unchanged, or the one the trainer built.
  void save(const std::string &tokenizerJsonPath) const;
  const std::string &toJson() const;

  struct Impl;

private:
  explicit Tokenizer(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_; // immutable once built, so copies share it
};

// The document `cudaperf-lm tokenize` and `cudaperf-tokenizer encode` print (docs/tokenizer.md):
// {"schema": "cudaperf-tokens/1", "count": N, "ids": [...]} plus "tokens": [...] when asked.
struct TokensJsonOptions {
  bool addSpecialTokens = true;
  bool withTokens = false; // the token strings too (byte-level form: "Ġ" is a space)
};
std::string encodeToJson(const Tokenizer &tokenizer, std::string_view text,
                         const TokensJsonOptions &options = {});

// Byte-level BPE trainer (Qwen2 form: Qwen2's pre-tokenizer regex, NFC, byte-level, no unk): for
// `make sft` and the ranking model's source encoder. Deterministic for the same inputs; the same
// merge order as Hugging Face's BpeTrainer (highest pair count first, ties to the smaller pair of
// ids). Special tokens take ids 0..k-1, the 256 byte symbols follow, then one id per merge.
inline const std::vector<std::string> kDefaultSpecialTokens = {"<|endoftext|>", "<|im_start|>",
                                                               "<|im_end|>", "<|pad|>"};
struct BpeTrainingOptions {
  size_t vocabSize = 8192; // special tokens and the 256 byte symbols included
  size_t minFrequency = 2; // a pair seen fewer times is never merged
  std::vector<std::string> specialTokens = kDefaultSpecialTokens;
  std::function<void(const std::string &)> progress; // a line now and then on long runs
};
Tokenizer trainByteLevelBpe(const std::vector<std::string> &texts, const BpeTrainingOptions &options);

// tokenizer_config.json for transformers' AutoTokenizer beside a trained tokenizer.json: the
// ChatML template (kChatMlTemplate) and the special tokens' roles. Throws if a named token is not
// an added token of `tokenizer`.
struct TokenizerConfigOptions {
  std::string eosToken = "<|im_end|>";
  std::string padToken = "<|pad|>";
  std::optional<std::string> bosToken; // none, as in Qwen2
  size_t modelMaxLength = 32768;
};
std::string tokenizerConfigJson(const Tokenizer &tokenizer, const TokenizerConfigOptions &options = {});
// Writes DIR/tokenizer.json and DIR/tokenizer_config.json (DIR is created if needed).
void saveTokenizerDirectory(const Tokenizer &tokenizer, const std::string &directory,
                            const TokenizerConfigOptions &options = {});

// Chat prompts: ChatML for Qwen-style models ("<|im_start|>role\n...<|im_end|>\n"); with
// addGenerationPrompt the assistant turn is opened ("<|im_start|>assistant\n"). No default system
// message is inserted (Qwen2.5's own template adds one: pass it explicitly).
struct ChatMessage {
  std::string role, content;
};
std::string applyChatMl(const std::vector<ChatMessage> &messages, bool addGenerationPrompt);
// The Jinja template that renders exactly what applyChatMl returns (written to tokenizer_config.json).
extern const char *const kChatMlTemplate;
// Whether a tokenizer_config.json chat template is of the ChatML form (uses <|im_start|> and
// <|im_end|>), so applyChatMl renders prompts for the model it belongs to.
bool isChatMlTemplate(std::string_view chatTemplate);

} // namespace cudaperf::learn
