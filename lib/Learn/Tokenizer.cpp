// Encoding and decoding in Hugging Face tokenizers' order: added tokens that are not normalized
// are split out of the raw text, the rest is normalized, then normalized added tokens are split
// out, then pre-tokenizer, BPE model and post-processor (TokenizerImpl::encode_single_sequence
// and post_process in the Rust library).
#include "TokenizerByteLevel.h"
#include "TokenizerImpl.h"
#include "TokenizerUtf8.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace cudaperf::learn {

namespace {
std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw TokenizerError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw TokenizerError("cannot read " + path + ": " + std::strerror(errno));
  return text.str();
}
} // namespace

const std::string *Tokenizer::Impl::tokenOf(int32_t id) const {
  if (auto it = addedSurface.find(id); it != addedSurface.end())
    return &it->second;
  return model->idToToken(id);
}

Tokenizer::Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Tokenizer Tokenizer::fromFile(const std::string &path) {
  std::string file = path;
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    file = (std::filesystem::path(path) / "tokenizer.json").string();
  const std::string document = readFile(file);
  try {
    return Tokenizer(parseTokenizerJson(document));
  } catch (const TokenizerError &e) {
    throw TokenizerError(file + ": " + e.what());
  }
}

Tokenizer Tokenizer::fromJson(const std::string &tokenizerJsonText) {
  return Tokenizer(parseTokenizerJson(tokenizerJsonText));
}

std::vector<int32_t> Tokenizer::encode(std::string_view input, bool addSpecialTokens) const {
  const Impl &impl = *impl_;
  std::string repaired;
  std::string_view text = input;
  if (!utf8::isValid(input)) {
    repaired = utf8::toValid(input);
    text = repaired;
  }
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  std::vector<Segment> raw, normalizedSegments;
  std::vector<std::string_view> pieces;
  std::deque<std::string> arena;
  impl.added.split(text, /*normalizedTokens=*/false, raw);
  for (const Segment &segment : raw) {
    if (segment.id >= 0) {
      ids.push_back(segment.id);
      continue;
    }
    std::string_view part = text.substr(segment.begin, segment.end - segment.begin);
    std::string normalized;
    if (!impl.normalizer.empty()) {
      normalized = impl.normalizer.apply(part);
      part = normalized;
    }
    normalizedSegments.clear();
    impl.added.split(part, /*normalizedTokens=*/true, normalizedSegments);
    for (const Segment &inner : normalizedSegments) {
      if (inner.id >= 0) {
        ids.push_back(inner.id);
        continue;
      }
      if (inner.end == inner.begin)
        continue;
      pieces.assign(1, part.substr(inner.begin, inner.end - inner.begin));
      arena.clear();
      impl.preTokenizer.apply(pieces, arena);
      for (std::string_view piece : pieces)
        impl.model->tokenize(piece, ids);
    }
  }
  if (addSpecialTokens)
    impl.postProcessor.apply(ids);
  return ids;
}

std::vector<std::string> Tokenizer::preTokenize(std::string_view input) const {
  const std::string text = utf8::toValid(input);
  std::vector<std::string_view> pieces;
  if (!text.empty())
    pieces.push_back(text);
  std::deque<std::string> arena;
  impl_->preTokenizer.apply(pieces, arena);
  std::vector<std::string> out;
  for (std::string_view piece : pieces)
    out.push_back(impl_->preTokenizer.byteLevel() ? bytelevel::encode(piece) : std::string(piece));
  return out;
}

std::string Tokenizer::decode(const std::vector<int32_t> &ids, bool skipSpecial) const {
  const Impl &impl = *impl_;
  std::vector<const std::string *> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    const std::string *token = impl.tokenOf(id);
    if (!token || (skipSpecial && impl.specialContents.count(*token)))
      continue;
    tokens.push_back(token);
  }
  std::string out;
  if (impl.decoder == DecoderKind::None) {
    for (size_t i = 0; i < tokens.size(); ++i)
      out += (i ? " " : "") + *tokens[i];
    return out;
  }
  // ByteLevel: a token whose characters are all byte symbols stands for those bytes; any other
  // (an added token such as "<|im_start|>" is both) is taken as its UTF-8 text.
  std::string bytes;
  for (const std::string *token : tokens) {
    if (auto raw = bytelevel::decode(*token))
      bytes += *raw;
    else
      bytes += *token;
  }
  return utf8::isValid(bytes) ? bytes : utf8::toValid(bytes);
}

std::optional<int32_t> Tokenizer::tokenToId(std::string_view token) const {
  if (auto it = impl_->addedIds.find(std::string(token)); it != impl_->addedIds.end())
    return it->second;
  return impl_->model->tokenToId(token);
}

std::string Tokenizer::idToToken(int32_t id) const {
  const std::string *token = impl_->tokenOf(id);
  if (!token)
    throw TokenizerError("no token has id " + std::to_string(id) + " (ids go up to " +
                         std::to_string(impl_->maxId) + ")");
  return *token;
}

bool Tokenizer::isSpecial(int32_t id) const {
  const AddedToken *token = impl_->added.find(id);
  return token && impl_->specialContents.count(token->content);
}

std::vector<AddedToken> Tokenizer::addedTokens() const { return impl_->added.tokens; }

size_t Tokenizer::vocabSize() const { return static_cast<size_t>(impl_->maxId + 1); }

const std::string &Tokenizer::toJson() const { return impl_->json; }

void Tokenizer::save(const std::string &path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw TokenizerError("cannot write " + path + ": " + std::strerror(errno));
  out << impl_->json;
  out.close();
  if (!out)
    throw TokenizerError("cannot write " + path + ": " + std::strerror(errno));
}

std::string encodeToJson(const Tokenizer &tokenizer, std::string_view text, const TokensJsonOptions &options) {
  const std::vector<int32_t> ids = tokenizer.encode(text, options.addSpecialTokens);
  nlohmann::ordered_json doc;
  doc["schema"] = "cudaperf-tokens/1";
  doc["count"] = ids.size();
  doc["ids"] = ids;
  if (options.withTokens) {
    auto &tokens = doc["tokens"] = nlohmann::ordered_json::array();
    for (int32_t id : ids)
      tokens.push_back(tokenizer.idToToken(id));
  }
  // Token strings of a non-byte-level vocabulary may hold any text; replace what is not UTF-8.
  return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace cudaperf::learn
