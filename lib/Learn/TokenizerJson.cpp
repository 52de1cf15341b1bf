// tokenizer.json -> Tokenizer::Impl, for the subset docs/tokenizer.md lists. Everything outside
// it is refused with the field's path, rather than tokenized differently from Hugging Face.
#include "TokenizerByteLevel.h"
#include "TokenizerImpl.h"

#include <map>

#include <nlohmann/json.hpp>

#include "cudaperf/Support/Json.h"

namespace cudaperf::learn {

namespace {

using Json = nlohmann::json;

[[noreturn]] void fail(const std::string &path, const std::string &problem) {
  throw TokenizerError("tokenizer.json: " + path + ": " + problem);
}

std::string shown(const Json &value) {
  std::string text = value.dump();
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

const Json *member(const Json &object, const char *key) {
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

bool flag(const Json &object, const char *key, const std::string &path, bool byDefault) {
  const Json *value = member(object, key);
  if (!value)
    return byDefault;
  if (!value->is_boolean())
    fail(path + "." + key, "expected true or false, found " + shown(*value));
  return value->get<bool>();
}

std::string text(const Json &value, const std::string &path) {
  if (!value.is_string())
    fail(path, "expected a string, found " + shown(value));
  return value.get<std::string>();
}

std::string typeOf(const Json &object, const std::string &path) {
  if (!object.is_object())
    fail(path, "expected an object, found " + shown(object));
  const Json *type = member(object, "type");
  if (!type)
    fail(path + ".type", "missing");
  return text(*type, path + ".type");
}

const Json &array(const Json &object, const char *key, const std::string &path) {
  const Json *value = member(object, key);
  if (!value || !value->is_array())
    fail(path + "." + key, value ? "expected an array, found " + shown(*value) : "missing");
  return *value;
}

// Sequences nest; a file nesting them deeper than this is refused rather than overflowing the stack.
constexpr int kMaxNesting = 32;

void checkNesting(int depth, const std::string &path) {
  if (depth > kMaxNesting)
    fail(path, "sequences nested deeper than " + std::to_string(kMaxNesting));
}

[[noreturn]] void unsupported(const std::string &path, const std::string &type, const char *supported) {
  fail(path + ".type", "\"" + type + "\" is not supported (supported: " + supported + ")");
}

void readNormalizer(const Json &node, const std::string &path, int depth, Normalizer &out) {
  checkNesting(depth, path);
  const std::string type = typeOf(node, path);
  if (type == "Sequence") {
    const Json &list = array(node, "normalizers", path);
    for (size_t i = 0; i < list.size(); ++i)
      readNormalizer(list[i], path + ".normalizers[" + std::to_string(i) + "]", depth + 1, out);
  } else if (type == "NFC")
    out.forms.push_back(UnicodeForm::NFC);
  else if (type == "NFD")
    out.forms.push_back(UnicodeForm::NFD);
  else if (type == "NFKC")
    out.forms.push_back(UnicodeForm::NFKC);
  else if (type == "NFKD")
    out.forms.push_back(UnicodeForm::NFKD);
  else
    unsupported(path, type, "NFC, NFD, NFKC, NFKD, Sequence");
}

SplitBehavior readBehavior(const Json &node, const std::string &path) {
  const Json *value = member(node, "behavior");
  if (!value)
    fail(path + ".behavior", "missing");
  const std::string name = text(*value, path + ".behavior");
  if (name == "Removed")
    return SplitBehavior::Removed;
  if (name == "Isolated")
    return SplitBehavior::Isolated;
  if (name == "MergedWithPrevious")
    return SplitBehavior::MergedWithPrevious;
  if (name == "MergedWithNext")
    return SplitBehavior::MergedWithNext;
  if (name == "Contiguous")
    return SplitBehavior::Contiguous;
  fail(path + ".behavior", "\"" + name + "\" is not one of Removed, Isolated, MergedWithPrevious, "
                                         "MergedWithNext, Contiguous");
}

void readPreTokenizer(const Json &node, const std::string &path, int depth, PreTokenizer &out) {
  checkNesting(depth, path);
  const std::string type = typeOf(node, path);
  if (type != "Sequence" && out.byteLevel())
    fail(path, "a pre-tokenizer after ByteLevel is not supported (ByteLevel must come last)");
  if (type == "Sequence") {
    const Json &list = array(node, "pretokenizers", path);
    for (size_t i = 0; i < list.size(); ++i)
      readPreTokenizer(list[i], path + ".pretokenizers[" + std::to_string(i) + "]", depth + 1, out);
  } else if (type == "Split") {
    const Json *pattern = member(node, "pattern");
    if (!pattern || !pattern->is_object() || pattern->size() != 1)
      fail(path + ".pattern", "expected {\"Regex\": ...} or {\"String\": ...}");
    SplitStep step;
    if (const Json *regex = member(*pattern, "Regex"))
      step.regex = std::make_shared<PreTokenizerRegex>(text(*regex, path + ".pattern.Regex"));
    else if (const Json *literal = member(*pattern, "String"))
      step.regex = std::make_shared<PreTokenizerRegex>(escapeRegexLiteral(text(*literal, path + ".pattern.String")));
    else
      fail(path + ".pattern", "expected {\"Regex\": ...} or {\"String\": ...}, found " + shown(*pattern));
    step.behavior = readBehavior(node, path);
    step.invert = flag(node, "invert", path, false);
    out.steps.emplace_back(std::move(step));
  } else if (type == "ByteLevel") {
    ByteLevelStep step;
    step.addPrefixSpace = flag(node, "add_prefix_space", path, true); // Hugging Face's defaults
    step.useRegex = flag(node, "use_regex", path, true);
    if (step.useRegex)
      step.gpt2Regex = std::make_shared<PreTokenizerRegex>(bytelevel::kGpt2Pattern);
    out.steps.emplace_back(std::move(step));
  } else
    unsupported(path, type, "ByteLevel, Split, Sequence");
}

std::vector<std::pair<std::string, std::string>> readMerges(const Json &list, const std::string &path) {
  std::vector<std::pair<std::string, std::string>> merges;
  merges.reserve(list.size());
  const bool pairs = !list.empty() && list[0].is_array();
  for (size_t i = 0; i < list.size(); ++i) {
    const Json &entry = list[i];
    const std::string where = path + "[" + std::to_string(i) + "]";
    if (pairs) {
      if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_string())
        fail(where, "expected a pair of tokens [\"a\", \"b\"] like the entries before it, found " + shown(entry));
      merges.emplace_back(entry[0].get<std::string>(), entry[1].get<std::string>());
      continue;
    }
    if (!entry.is_string())
      fail(where, "expected \"a b\" like the entries before it, found " + shown(entry));
    const std::string line = entry.get<std::string>();
    if (line.rfind("#version", 0) == 0)
      continue; // the header line of a merges.txt
    const size_t space = line.find(' ');
    if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
      fail(where, shown(entry) + " is not two tokens separated by one space");
    merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  return merges;
}

// Ids index tables; far larger vocabularies than any model's (Gemma's 262k) are refused rather
// than allocated.
constexpr int64_t kMaxId = (1 << 26) - 1;

std::unique_ptr<BpeModel> readModel(const Json &node, bool byteLevelInput) {
  const std::string path = "model";
  if (!node.is_object())
    fail(path, "expected an object, found " + shown(node));
  if (const Json *type = member(node, "type")) {
    const std::string name = text(*type, path + ".type");
    if (name != "BPE")
      unsupported(path, name, "BPE");
  }
  if (const Json *dropout = member(node, "dropout")) {
    if (!dropout->is_number())
      fail(path + ".dropout", "expected a number or null, found " + shown(*dropout));
    if (dropout->get<double>() != 0)
      fail(path + ".dropout", shown(*dropout) + ": BPE dropout makes encoding random; only null or 0 is supported");
  }
  for (const char *key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (const Json *affix = member(node, key); affix && !text(*affix, path + "." + key).empty())
      fail(path + "." + key, shown(*affix) + " is not supported (only byte-level BPE without affixes)");
  if (flag(node, "byte_fallback", path, false))
    fail(path + ".byte_fallback", "true is not supported (byte fallback to <0xNN> tokens belongs to "
                                  "SentencePiece-style models; byte-level BPE needs none)");
  BpeOptions options;
  options.fuseUnk = flag(node, "fuse_unk", path, false);
  options.ignoreMerges = flag(node, "ignore_merges", path, false);
  options.byteLevelInput = byteLevelInput;
  if (const Json *unk = member(node, "unk_token"))
    options.unkToken = text(*unk, path + ".unk_token");

  const Json *vocabNode = member(node, "vocab");
  if (!vocabNode || !vocabNode->is_object())
    fail(path + ".vocab", vocabNode ? "expected an object of token: id" : "missing");
  std::unordered_map<std::string, int32_t> vocab;
  vocab.reserve(vocabNode->size());
  for (auto it = vocabNode->begin(); it != vocabNode->end(); ++it) {
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 || it.value().get<int64_t>() > kMaxId)
      fail(path + ".vocab[\"" + it.key() + "\"]",
           "expected an id from 0 to " + std::to_string(kMaxId) + ", found " + shown(it.value()));
    vocab.emplace(it.key(), static_cast<int32_t>(it.value().get<int64_t>()));
  }
  return std::make_unique<BpeModel>(std::move(vocab), readMerges(array(node, "merges", path), path + ".merges"),
                                    std::move(options));
}

// Ids as Hugging Face assigns them when it loads the file (AddedVocabulary::add_tokens): a token
// already in the vocabulary keeps that id, the others are numbered from the vocabulary's size on;
// the "id" written in the file is not read (Hugging Face only warns when it differs).
void readAddedTokens(const Json &list, Tokenizer::Impl &impl) {
  int32_t nextId = static_cast<int32_t>(impl.model->size());
  std::map<int32_t, AddedToken> byId; // ordered: the matchers do not depend on hashing
  for (size_t i = 0; i < list.size(); ++i) {
    const Json &node = list[i];
    const std::string path = "added_tokens[" + std::to_string(i) + "]";
    if (!node.is_object())
      fail(path, "expected an object, found " + shown(node));
    const Json *content = member(node, "content");
    if (!content)
      fail(path + ".content", "missing");
    AddedToken token;
    token.content = text(*content, path + ".content");
    token.singleWord = flag(node, "single_word", path, false);
    token.lstrip = flag(node, "lstrip", path, false);
    token.rstrip = flag(node, "rstrip", path, false);
    token.normalized = flag(node, "normalized", path, true);
    token.special = flag(node, "special", path, false);
    if (token.content.empty())
      continue;
    int32_t id;
    if (auto known = impl.addedIds.find(token.content); known != impl.addedIds.end())
      id = known->second;
    else if (auto inVocab = impl.model->tokenToId(token.content))
      id = *inVocab;
    else
      id = nextId++;
    impl.addedIds[token.content] = id;
    if (token.special)
      impl.specialContents.insert(token.content);
    std::string surface = token.content;
    if (token.normalized && !impl.normalizer.empty())
      surface = impl.normalizer.apply(token.content);
    impl.addedSurface[id] = surface;
    token.id = id;
    byId[id] = std::move(token);
  }
  for (auto &[id, token] : byId) {
    if (token.normalized)
      impl.added.normalizedMatcher.add(impl.addedSurface[id], id);
    else
      impl.added.rawMatcher.add(token.content, id);
    impl.added.tokens.push_back(std::move(token));
  }
  std::sort(impl.added.tokens.begin(), impl.added.tokens.end(),
            [](const AddedToken &a, const AddedToken &b) { return a.id < b.id; });
}

void readPostProcessor(const Json &node, const std::string &path, int depth, PostProcessor &out) {
  checkNesting(depth, path);
  const std::string type = typeOf(node, path);
  if (type == "Sequence") {
    const Json &list = array(node, "processors", path);
    for (size_t i = 0; i < list.size(); ++i)
      readPostProcessor(list[i], path + ".processors[" + std::to_string(i) + "]", depth + 1, out);
  } else if (type == "ByteLevel") {
    // Adjusts offsets only; ids are unchanged.
  } else if (type == "TemplateProcessing") {
    const Json &single = array(node, "single", path);
    const Json *specials = member(node, "special_tokens");
    std::vector<PostProcessor::Piece> pieces;
    for (size_t i = 0; i < single.size(); ++i) {
      const std::string where = path + ".single[" + std::to_string(i) + "]";
      PostProcessor::Piece piece;
      if (const Json *sequence = member(single[i], "Sequence")) {
        const Json *id = member(*sequence, "id");
        if (!id || text(*id, where + ".Sequence.id") != "A")
          fail(where + ".Sequence.id", "only sequence A can appear in a single-sequence template");
        piece.isSequence = true;
      } else if (const Json *special = member(single[i], "SpecialToken")) {
        const Json *id = member(*special, "id");
        if (!id)
          fail(where + ".SpecialToken.id", "missing");
        const std::string name = text(*id, where + ".SpecialToken.id");
        const Json *entry = specials ? member(*specials, name.c_str()) : nullptr;
        if (!entry)
          fail(path + ".special_tokens", "has no entry for \"" + name + "\" used in the template");
        const Json &ids = array(*entry, "ids", path + ".special_tokens[\"" + name + "\"]");
        for (const Json &value : ids) {
          if (!value.is_number_integer() || value.get<int64_t>() < 0)
            fail(path + ".special_tokens[\"" + name + "\"].ids", "expected ids, found " + shown(value));
          piece.ids.push_back(static_cast<int32_t>(value.get<int64_t>()));
        }
      } else
        fail(where, "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}, found " + shown(single[i]));
      pieces.push_back(std::move(piece));
    }
    out.templates.push_back(std::move(pieces));
  } else
    unsupported(path, type, "ByteLevel, TemplateProcessing, Sequence");
}

DecoderKind readDecoder(const Json &node, const std::string &path, int depth) {
  checkNesting(depth, path);
  const std::string type = typeOf(node, path);
  if (type == "ByteLevel")
    return DecoderKind::ByteLevel;
  if (type == "Sequence") {
    const Json &list = array(node, "decoders", path);
    if (list.size() == 1)
      return readDecoder(list[0], path + ".decoders[0]", depth + 1);
    fail(path + ".decoders", "only a Sequence of one ByteLevel decoder is supported");
  }
  unsupported(path, type, "ByteLevel");
}

} // namespace

std::shared_ptr<Tokenizer::Impl> parseTokenizerJson(const std::string &document) {
  Json root;
  try {
    // Nesting is bounded while parsing: a 100,000-deep document would otherwise reach the recursive
    // printer of an error message (shown) and overflow the stack.
    Json::parser_callback_t depthLimit = [](int depth, Json::parse_event_t, Json &) {
      if (depth > support::kMaxJsonDepth)
        throw TokenizerError("tokenizer.json: nesting deeper than " + std::to_string(support::kMaxJsonDepth) +
                             " levels");
      return true;
    };
    root = Json::parse(document, depthLimit);
  } catch (const Json::exception &e) { // parse_error, and out_of_range for a number such as 2E757 (fuzz-TokenizerJson)
    throw TokenizerError(std::string("tokenizer.json is not valid JSON: ") + e.what());
  }
  if (!root.is_object())
    throw TokenizerError("tokenizer.json: expected an object at the top, found " + shown(root));
  if (const Json *version = member(root, "version"); version && text(*version, "version") != "1.0")
    fail("version", shown(*version) + " is not a known tokenizer.json version (\"1.0\")");

  auto impl = std::make_shared<Tokenizer::Impl>();
  impl->json = document;
  if (const Json *node = member(root, "normalizer"))
    readNormalizer(*node, "normalizer", 0, impl->normalizer);
  if (const Json *node = member(root, "pre_tokenizer"))
    readPreTokenizer(*node, "pre_tokenizer", 0, impl->preTokenizer);
  const Json *model = member(root, "model");
  if (!model)
    fail("model", "missing");
  impl->model = readModel(*model, impl->preTokenizer.byteLevel());
  if (const Json *node = member(root, "added_tokens")) {
    if (!node->is_array())
      fail("added_tokens", "expected an array, found " + shown(*node));
    readAddedTokens(*node, *impl);
  }
  if (const Json *node = member(root, "post_processor"))
    readPostProcessor(*node, "post_processor", 0, impl->postProcessor);
  if (const Json *node = member(root, "decoder"))
    impl->decoder = readDecoder(*node, "decoder", 0);
  // truncation and padding are per-call settings in transformers, which resets them before
  // every call; they are not applied here either (docs/tokenizer.md).

  impl->maxId = impl->model->maxId();
  for (const AddedToken &token : impl->added.tokens)
    impl->maxId = std::max(impl->maxId, token.id);
  return impl;
}

} // namespace cudaperf::learn
