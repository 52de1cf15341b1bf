// Hand-computed cases for the tokenizer on tiny vocabularies, where the expected ids follow from
// Hugging Face's rules by hand; and every refusal of an unsupported tokenizer.json field.
#include "cudaperf/Learn/Tokenizer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

namespace cudaperf::learn {
namespace {

using Json = nlohmann::ordered_json;
using Ids = std::vector<int32_t>;

// A byte-level tokenizer without normalizer or regex: every byte is a piece's symbol.
Json byteLevelDocument(Json vocab, Json merges) {
  return {{"version", "1.0"},
          {"added_tokens", Json::array()},
          {"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}}},
          {"post_processor", nullptr},
          {"decoder", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}}},
          {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"fuse_unk", false},
                     {"byte_fallback", false}, {"ignore_merges", false}, {"vocab", std::move(vocab)},
                     {"merges", std::move(merges)}}}};
}

// Merges as pairs; a braced list of string pairs alone would become a JSON object.
Json pairs(std::initializer_list<std::pair<const char *, const char *>> list) {
  Json merges = Json::array();
  for (const auto &[a, b] : list)
    merges.push_back(Json::array({a, b}));
  return merges;
}

Tokenizer load(const Json &doc) { return Tokenizer::fromJson(doc.dump()); }

Json addedToken(const std::string &content, bool special, Json flags = Json::object()) {
  Json token = {{"id", 999}, {"content", content}, {"single_word", false}, {"lstrip", false},
                {"rstrip", false}, {"normalized", !special}, {"special", special}};
  for (const auto &f : flags.items())
    token[f.key()] = f.value();
  return token;
}

TEST(Tokenizer, LowestRankedPairMergesFirst) {
  const Json vocab = {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}, {"abc", 5}};
  EXPECT_EQ(load(byteLevelDocument(vocab, pairs({{"b", "c"}, {"a", "b"}, {"ab", "c"}}))).encode("abc"), (Ids{0, 4}));
  EXPECT_EQ(load(byteLevelDocument(vocab, pairs({{"a", "b"}, {"ab", "c"}}))).encode("abc"), (Ids{5}));
}

TEST(Tokenizer, EqualPairsMergeLeftmostFirst) {
  const Tokenizer t = load(byteLevelDocument({{"a", 0}, {"aa", 1}}, pairs({{"a", "a"}})));
  EXPECT_EQ(t.encode("aaa"), (Ids{1, 0}));
  EXPECT_EQ(t.encode("aaaa"), (Ids{1, 1}));
  EXPECT_EQ(t.encode("aaaaa"), (Ids{1, 1, 0}));
}

TEST(Tokenizer, PairListedTwiceKeepsItsLastRank) {
  const Json vocab = {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}};
  // (b, c) ranks 2, after (a, b): "abc" becomes ab + c.
  EXPECT_EQ(load(byteLevelDocument(vocab, pairs({{"b", "c"}, {"a", "b"}, {"b", "c"}}))).encode("abc"), (Ids{3, 2}));
}

TEST(Tokenizer, LegacyStringMergesEqualPairMerges) {
  const Json vocab = {{"a", 0}, {"b", 1}, {"ab", 2}};
  EXPECT_EQ(load(byteLevelDocument(vocab, {"#version: 0.2", "a b"})).encode("abab"), (Ids{2, 2}));
}

TEST(Tokenizer, IgnoreMergesTakesAWholeWordFromTheVocabulary) {
  const Json vocab = {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"abc", 4}};
  Json doc = byteLevelDocument(vocab, pairs({{"a", "b"}}));
  EXPECT_EQ(load(doc).encode("abc"), (Ids{3, 2}));
  doc["model"]["ignore_merges"] = true;
  EXPECT_EQ(load(doc).encode("abc"), (Ids{4}));
  EXPECT_EQ(load(doc).encode("abcab"), (Ids{3, 2, 3})) << "a word not in the vocabulary is merged as usual";
}

TEST(Tokenizer, UnknownCharactersBecomeUnkFusedOrNot) {
  Json doc = byteLevelDocument({{"<unk>", 0}, {"a", 1}, {"b", 2}}, Json::array());
  doc["pre_tokenizer"] = nullptr;
  doc["decoder"] = nullptr;
  EXPECT_EQ(load(doc).encode("axyb"), (Ids{1, 2})) << "without an unk token, unknown characters vanish";
  doc["model"]["unk_token"] = "<unk>";
  EXPECT_EQ(load(doc).encode("axyb"), (Ids{1, 0, 0, 2}));
  doc["model"]["fuse_unk"] = true;
  EXPECT_EQ(load(doc).encode("axyb"), (Ids{1, 0, 2}));
  EXPECT_EQ(load(doc).decode({1, 0, 2}), "a <unk> b") << "without a decoder, tokens are joined by spaces";
}

TEST(Tokenizer, BytesOfMultiByteCharactersAreSymbolsOfTheByteAlphabet) {
  // U+00E9 is C3 A9; bytes 0xC3 and 0xA9 stand for themselves in GPT-2's alphabet.
  const Tokenizer t = load(byteLevelDocument({{"\u00c3", 0}, {"\u00a9", 1}, {"\u00c3\u00a9", 2}, {"\u0120", 3}},
                                             pairs({{"\u00c3", "\u00a9"}})));
  EXPECT_EQ(t.encode("\u00e9"), (Ids{2}));
  EXPECT_EQ(t.encode(" \u00e9"), (Ids{3, 2})) << "a space is the symbol U+0120";
  EXPECT_EQ(t.decode({3, 2}), " \u00e9");
  EXPECT_EQ(t.decode({0}), "\ufffd") << "half a character decodes to U+FFFD";
}

TEST(Tokenizer, InvalidUtf8IsReadAsReplacementCharacters) {
  // U+FFFD is EF BF BD: symbols U+00EF, U+00BF, U+00BD.
  const Tokenizer t = load(byteLevelDocument({{"\u00ef", 0}, {"\u00bf", 1}, {"\u00bd", 2}, {"A", 3}}, Json::array()));
  const Ids replacement = {0, 1, 2};
  EXPECT_EQ(t.encode("\xff"), replacement);
  EXPECT_EQ(t.encode("\xe2\x82" "A"), (Ids{0, 1, 2, 3})) << "a truncated sequence is one U+FFFD";
  EXPECT_EQ(t.encode("\xc0\x80"), (Ids{0, 1, 2, 0, 1, 2})) << "C0 can start nothing: two U+FFFD";
  EXPECT_EQ(t.encode("\xed\xa0\x80"), (Ids{0, 1, 2, 0, 1, 2, 0, 1, 2})) << "surrogates are not UTF-8";
}

TEST(Tokenizer, Gpt2RegexKeepsTheLastSpaceOfARunForTheNextWord) {
  Json doc = byteLevelDocument({{"a", 0}, {"b", 1}, {"\u0120", 2}, {"\u0120b", 3}}, pairs({{"\u0120", "b"}}));
  doc["pre_tokenizer"]["use_regex"] = true;
  const Tokenizer t = load(doc);
  EXPECT_EQ(t.preTokenize("a  b"), (std::vector<std::string>{"a", "\u0120", "\u0120b"}));
  EXPECT_EQ(t.encode("a  b"), (Ids{0, 2, 3}));
  doc["pre_tokenizer"]["add_prefix_space"] = true;
  EXPECT_EQ(load(doc).encode("b"), (Ids{3})) << "add_prefix_space puts a space before the piece";
}

TEST(Tokenizer, AddedTokensTakeIdsAsHuggingFaceAssignsThem) {
  Json doc = byteLevelDocument({{"a", 0}, {"b", 1}}, Json::array());
  doc["added_tokens"] = {addedToken("<s>", true), addedToken("b", false), addedToken("<t>", true)};
  const Tokenizer t = load(doc);
  EXPECT_EQ(t.tokenToId("<s>"), 2) << "numbered from the vocabulary's size, whatever the file says";
  EXPECT_EQ(t.tokenToId("b"), 1) << "a token of the vocabulary keeps its id";
  EXPECT_EQ(t.tokenToId("<t>"), 3);
  EXPECT_EQ(t.vocabSize(), 4u);
  EXPECT_TRUE(t.isSpecial(2));
  EXPECT_FALSE(t.isSpecial(1));
  EXPECT_FALSE(t.isSpecial(0));
  EXPECT_EQ(t.idToToken(3), "<t>");
  EXPECT_THROW(t.idToToken(4), TokenizerError);
  EXPECT_EQ(t.encode("a<s>b<t>"), (Ids{0, 2, 1, 3}));
  EXPECT_EQ(t.decode({0, 2, 1, 3}), "a<s>b<t>");
  EXPECT_EQ(t.decode({0, 2, 1, 3}, true), "ab");
  EXPECT_EQ(t.decode({0, 77, 1}), "ab") << "ids without a token are skipped";
  ASSERT_EQ(t.addedTokens().size(), 3u);
  EXPECT_EQ(t.addedTokens()[0].id, 1);
  EXPECT_EQ(t.addedTokens()[1].content, "<s>");
}

TEST(Tokenizer, LongestAddedTokenWinsAtTheLeftmostPosition) {
  Json doc = byteLevelDocument({{"<", 0}, {"s", 1}, {">", 2}}, Json::array());
  doc["added_tokens"] = {addedToken("<s>", true), addedToken("<s><s>", true)};
  const Tokenizer t = load(doc);
  EXPECT_EQ(t.encode("<s><s><s>"), (Ids{4, 3}));
  EXPECT_EQ(t.encode("<<s>"), (Ids{0, 3}));
}

TEST(Tokenizer, LstripRstripAndSingleWordAsHuggingFaceDefinesThem) {
  Json doc = byteLevelDocument({{"a", 0}, {"b", 1}, {".", 2}, {"\u0120", 3}}, Json::array());
  doc["added_tokens"] = {addedToken("<l>", true, {{"lstrip", true}}), addedToken("<r>", true, {{"rstrip", true}}),
                         addedToken("ab", false, {{"single_word", true}})};
  const Tokenizer t = load(doc);
  const int32_t l = 4, r = 5, ab = 6;
  EXPECT_EQ(t.encode("a  <l> b"), (Ids{0, l, 3, 1})) << "lstrip takes the spaces before";
  EXPECT_EQ(t.encode("a <r>  b"), (Ids{0, 3, r, 1})) << "rstrip takes the spaces after";
  EXPECT_EQ(t.encode("a ab b"), (Ids{0, 3, ab, 3, 1})) << "a single word";
  EXPECT_EQ(t.encode("ab."), (Ids{ab, 2})) << "punctuation is not a word character";
  EXPECT_EQ(t.encode("aab b"), (Ids{0, 0, 1, 3, 1})) << "inside a word: not the added token";
  EXPECT_EQ(t.encode("ab\u00e9"), (Ids{0, 1})) << "U+00E9 is a word character (and its bytes have no symbols here)";
}

TEST(Tokenizer, NormalizedAddedTokensMatchTheNormalizedText) {
  Json doc = byteLevelDocument({{"e", 0}}, Json::array());
  doc["normalizer"] = {{"type", "NFC"}};
  doc["added_tokens"] = {addedToken("\u00e9", false)};
  EXPECT_EQ(load(doc).encode("e\u0301"), (Ids{1})) << "NFC makes e + U+0301 the added token";
  doc["added_tokens"][0]["normalized"] = false;
  EXPECT_TRUE(load(doc).encode("e\u0301").empty())
      << "matched in the raw text only, which has no U+00E9; the bytes of its NFC form have no symbols here";
  EXPECT_EQ(load(doc).encode("\u00e9"), (Ids{1}));
}

TEST(Tokenizer, TemplateAddsTheBeginningOfTextToken) {
  Json doc = byteLevelDocument({{"a", 0}}, Json::array());
  doc["added_tokens"] = {addedToken("<bos>", true)};
  doc["post_processor"] = Json::parse(R"({"type": "Sequence", "processors": [
      {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
      {"type": "TemplateProcessing",
       "single": [{"SpecialToken": {"id": "<bos>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
       "special_tokens": {"<bos>": {"id": "<bos>", "ids": [1], "tokens": ["<bos>"]}}}]})");
  const Tokenizer t = load(doc);
  EXPECT_EQ(t.encode("aa"), (Ids{1, 0, 0}));
  EXPECT_EQ(t.encode("aa", false), (Ids{0, 0}));
  EXPECT_EQ(t.encode(""), (Ids{1}));
  EXPECT_EQ(t.decode(t.encode("aa"), true), "aa");
}

TEST(Tokenizer, EmptyTextHasNoIds) {
  const Tokenizer t = load(byteLevelDocument({{"a", 0}}, Json::array()));
  EXPECT_TRUE(t.encode("").empty());
  EXPECT_EQ(t.decode({}), "");
}

TEST(Tokenizer, EncodesTheSameOnSeveralThreads) {
  const Tokenizer t = load(byteLevelDocument({{"a", 0}, {"b", 1}, {"ab", 2}, {"abab", 3}}, pairs({{"a", "b"}, {"ab", "ab"}})));
  const std::string text(20000, 'a');
  std::string mixed;
  for (int i = 0; i < 5000; ++i)
    mixed += i % 3 ? "ab" : "abab";
  const Ids expected = t.encode(mixed);
  std::vector<Ids> results(4);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 20; ++k)
        results[i] = t.encode(mixed);
    });
  for (auto &thread : threads)
    thread.join();
  for (const Ids &ids : results)
    EXPECT_EQ(ids, expected);
}

TEST(Tokenizer, CopiesShareOneTokenizer) {
  const Tokenizer t = load(byteLevelDocument({{"a", 0}}, Json::array()));
  const Tokenizer copy = t;
  EXPECT_EQ(copy.encode("aa"), t.encode("aa"));
  EXPECT_EQ(&copy.toJson(), &t.toJson());
}

TEST(Tokenizer, TokensJsonDocument) {
  const Tokenizer t = load(byteLevelDocument({{"a", 0}, {"\u0120", 1}}, Json::array()));
  EXPECT_EQ(encodeToJson(t, "a a"), R"({"schema":"cudaperf-tokens/1","count":3,"ids":[0,1,0]})");
  EXPECT_EQ(encodeToJson(t, "a ", {true, true}), R"({"schema":"cudaperf-tokens/1","count":2,"ids":[0,1],"tokens":["a","Ġ"]})");
}

TEST(Tokenizer, SavedFileLoadsToTheSameTokenizer) {
  const Json doc = byteLevelDocument({{"a", 0}, {"b", 1}, {"ab", 2}}, pairs({{"a", "b"}}));
  const Tokenizer t = load(doc);
  const auto dir = std::filesystem::temp_directory_path() / ("cudaperf-tokenizer-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  t.save((dir / "tokenizer.json").string());
  const Tokenizer fromDirectory = Tokenizer::fromFile(dir.string());
  EXPECT_EQ(fromDirectory.toJson(), doc.dump());
  EXPECT_EQ(fromDirectory.encode("abba"), t.encode("abba"));
  std::filesystem::remove_all(dir);
  try {
    Tokenizer::fromFile((dir / "tokenizer.json").string());
    FAIL() << "a missing file loads";
  } catch (const TokenizerError &e) {
    EXPECT_NE(std::string(e.what()).find((dir / "tokenizer.json").string()), std::string::npos) << e.what();
  }
}

// Each refusal names the field and what is wrong with it.
TEST(Tokenizer, UnsupportedOrMalformedFieldsAreRefusedByName) {
  const Json base = byteLevelDocument({{"a", 0}, {"b", 1}, {"ab", 2}}, pairs({{"a", "b"}}));
  // The new value of one field; strings of JSON text are parsed.
  const auto with = [&](const std::string &pointer, const Json &value) {
    Json doc = base;
    const bool text = value.is_string() && !value.get<std::string>().empty() &&
                      std::string("[{").find(value.get<std::string>()[0]) != std::string::npos;
    doc[Json::json_pointer(pointer)] = text ? Json::parse(value.get<std::string>()) : value;
    return doc;
  };
  const std::vector<std::pair<Json, std::string>> cases = {
      {with("/model/byte_fallback", true), "model.byte_fallback"},
      {with("/model/type", "Unigram"), "model.type: \"Unigram\" is not supported"},
      {with("/model/dropout", 0.1), "model.dropout"},
      {with("/model/continuing_subword_prefix", "##"), "model.continuing_subword_prefix"},
      {with("/model/merges", R"(["a b c"])"), "model.merges[0]"},
      {with("/model/merges", R"(["a b", ["a", "b"]])"), "model.merges[1]"},
      {with("/model/merges", R"([["a", "z"]])"), "model.merges[0]: \"z\" is not in the vocabulary"},
      {with("/model/merges", R"([["b", "a"]])"), "\"ba\" is not in the vocabulary"},
      {with("/model/vocab/a", -1), "model.vocab[\"a\"]"},
      {with("/model/unk_token", "<unk>"), "model.unk_token"},
      {with("/normalizer", R"({"type": "Lowercase"})"), "normalizer.type: \"Lowercase\" is not supported"},
      {with("/normalizer", R"({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Strip"}]})"),
       "normalizer.normalizers[1].type"},
      {with("/pre_tokenizer", R"({"type": "Metaspace"})"), "pre_tokenizer.type: \"Metaspace\""},
      {with("/pre_tokenizer", R"({"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated"})"),
       "does not compile"},
      {with("/pre_tokenizer", R"({"type": "Split", "pattern": {"Regex": "x"}, "behavior": "Sideways"})"),
       "pre_tokenizer.behavior: \"Sideways\""},
      {with("/pre_tokenizer", R"({"type": "Sequence", "pretokenizers": [{"type": "ByteLevel"},
                                   {"type": "Split", "pattern": {"String": " "}, "behavior": "Removed"}]})"),
       "ByteLevel must come last"},
      {with("/post_processor", R"({"type": "RobertaProcessing"})"), "post_processor.type: \"RobertaProcessing\""},
      {with("/decoder", R"({"type": "WordPiece"})"), "decoder.type: \"WordPiece\""},
      {with("/added_tokens", R"([{"id": 3}])"), "added_tokens[0].content: missing"},
      {with("/added_tokens", R"([{"content": "x", "special": "yes"}])"), "added_tokens[0].special"},
      {with("/version", "2.0"), "version"},
      {with("/model/vocab/a", 1 << 30), "expected an id from 0 to 67108863"},
  };
  for (const auto &[doc, expected] : cases) {
    try {
      load(doc);
      ADD_FAILURE() << "accepted: " << expected;
    } catch (const TokenizerError &e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << "message: " << e.what();
    }
  }
  EXPECT_THROW(Tokenizer::fromJson("{\"model\": "), TokenizerError);
  EXPECT_THROW(Tokenizer::fromJson("[1, 2]"), TokenizerError);
  EXPECT_THROW(Tokenizer::fromJson("{}"), TokenizerError);
  Json nested = {{"type", "NFC"}};
  for (int i = 0; i < 100; ++i)
    nested = {{"type", "Sequence"}, {"normalizers", Json::array({nested})}};
  Json deep = base;
  deep["normalizer"] = nested;
  EXPECT_THROW(load(deep), TokenizerError) << "deeply nested sequences are refused, not recursed into";
}

} // namespace
} // namespace cudaperf::learn

// Issue 35, found by fuzz-TokenizerJson: a number too large for a double (2E757) was an uncaught
// nlohmann out_of_range (std::terminate); it is a TokenizerError like any other invalid JSON.
TEST(Tokenizer, OverflowingNumberIsInvalidJson) {
  using cudaperf::learn::Tokenizer;
  using cudaperf::learn::TokenizerError;
  try {
    Tokenizer::fromJson(R"({"version": "1.0", "x": 2E757})");
    ADD_FAILURE() << "an overflowing number must be refused";
  } catch (const TokenizerError &e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
}
