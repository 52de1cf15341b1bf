// The byte-level BPE trainer: merges computed by hand on tiny corpora, determinism, round trips,
// and (where the GPU host's fixtures exist) the same merges as Hugging Face's BpeTrainer.
#include "TokenizerFixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace cudaperf::learn::testing {
namespace {

std::vector<std::pair<std::string, std::string>> mergesOf(const Tokenizer &t) {
  std::vector<std::pair<std::string, std::string>> merges;
  const Json doc = Json::parse(t.toJson());
  for (const Json &m : doc["model"]["merges"])
    merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
  return merges;
}

BpeTrainingOptions withVocab(size_t vocabSize, size_t minFrequency = 2) {
  BpeTrainingOptions options;
  options.vocabSize = vocabSize;
  options.minFrequency = minFrequency;
  return options;
}

// Ids: 4 special tokens, then the 256 byte symbols in code point order: 'a' (97) is 4 + 64,
// 'b' 4 + 65, and the space symbol U+0120 comes after the 188 bytes that stand for themselves.
constexpr int32_t kA = 68, kB = 69, kSpace = 4 + 188 + 32, kFirstMerge = 260;

TEST(BpeTrainer, MergesTheMostFrequentPairFirst) {
  // Words "abab" and " ab": (a, b) is seen 3 times, (b, a) and (Ġ, a) once.
  const Tokenizer t = trainByteLevelBpe({"abab ab"}, withVocab(1000));
  EXPECT_EQ(mergesOf(t), (std::vector<std::pair<std::string, std::string>>{{"a", "b"}}))
      << "after (a, b), every pair is seen once, under the minimum frequency 2";
  EXPECT_EQ(t.tokenToId("ab"), kFirstMerge);
  EXPECT_EQ(t.tokenToId("a"), kA);
  EXPECT_EQ(t.tokenToId("b"), kB);
  EXPECT_EQ(t.tokenToId("\u0120"), kSpace);
  EXPECT_EQ(t.vocabSize(), 261u);
}

TEST(BpeTrainer, BreaksTiesTowardTheSmallerPairOfIds) {
  // After (a, b): (ab, ab) and (Ġ, ab) are both seen once; (Ġ, ab) has the smaller first id.
  const Tokenizer t = trainByteLevelBpe({"abab ab"}, withVocab(1000, 1));
  EXPECT_EQ(mergesOf(t), (std::vector<std::pair<std::string, std::string>>{
                             {"a", "b"}, {"\u0120", "ab"}, {"ab", "ab"}}));
  EXPECT_EQ(t.encode("abab ab"), (std::vector<int32_t>{kFirstMerge + 2, kFirstMerge + 1}));
}

TEST(BpeTrainer, StopsAtTheVocabularySize) {
  const Tokenizer t = trainByteLevelBpe({"abab ab"}, withVocab(262, 1));
  EXPECT_EQ(mergesOf(t).size(), 2u);
  EXPECT_EQ(t.vocabSize(), 262u);
}

TEST(BpeTrainer, OverlappingPairsMergeLeftToRight) {
  // "aaaa" x2: (a, a) is counted 3 times per word; merging gives "aa aa", then (aa, aa).
  const Tokenizer t = trainByteLevelBpe({"aaaa aaaa"}, withVocab(1000));
  const auto merges = mergesOf(t);
  ASSERT_GE(merges.size(), 1u);
  EXPECT_EQ(merges[0], (std::pair<std::string, std::string>{"a", "a"}));
  EXPECT_EQ(t.decode(t.encode("aaaa aaaa")), "aaaa aaaa");
}

TEST(BpeTrainer, SpecialTokensComeFirstAndAreMatchedInText) {
  const Tokenizer t = trainByteLevelBpe({"hello world"}, withVocab(300));
  EXPECT_EQ(t.tokenToId("<|endoftext|>"), 0);
  EXPECT_EQ(t.tokenToId("<|im_start|>"), 1);
  EXPECT_EQ(t.tokenToId("<|im_end|>"), 2);
  EXPECT_EQ(t.tokenToId("<|pad|>"), 3);
  for (int32_t id = 0; id < 4; ++id)
    EXPECT_TRUE(t.isSpecial(id));
  EXPECT_FALSE(t.isSpecial(4));
  const auto ids = t.encode("<|im_start|>hello<|im_end|>");
  EXPECT_EQ(ids.front(), 1);
  EXPECT_EQ(ids.back(), 2);
  EXPECT_EQ(t.decode(ids, true), "hello");
}

TEST(BpeTrainer, SameResultWhateverTheOrderOfTheTexts) {
  std::vector<std::string> texts;
  for (const char *name : {"tiled.cu", "kernels.cu", "transpose.cu", "layer_norm.py", "WarpRequests.cpp"})
    texts.push_back(readBytes(fixtureDir() / "texts" / name));
  const std::string first = trainByteLevelBpe(texts, withVocab(500)).toJson();
  std::reverse(texts.begin(), texts.end());
  EXPECT_EQ(trainByteLevelBpe(texts, withVocab(500)).toJson(), first);
  std::shuffle(texts.begin(), texts.end(), std::mt19937(7));
  EXPECT_EQ(trainByteLevelBpe(texts, withVocab(500)).toJson(), first);
}

TEST(BpeTrainer, DecodingGivesTheNormalizedTextBack) {
  const std::string adversarial = readBytes(fixtureDir() / "texts" / "adversarial.txt");
  const Tokenizer t = trainByteLevelBpe({adversarial, readBytes(fixtureDir() / "texts" / "kernels.cu")}, withVocab(600));
  const std::string kernels = readBytes(fixtureDir() / "texts" / "kernels.cu");
  EXPECT_EQ(t.decode(t.encode(kernels)), kernels);
  // adversarial.txt is not in NFC (it has e + U+0301): decoding gives its NFC form, with
  // U+00E9 where e + U+0301 was.
  const std::string decoded = t.decode(t.encode(adversarial));
  EXPECT_EQ(decoded.find("e\u0301"), std::string::npos);
  EXPECT_NE(decoded.find("\u00e9"), std::string::npos);
  EXPECT_EQ(decoded, t.decode(t.encode(decoded))) << "the NFC form is a fixed point";
  EXPECT_LT(t.encode(kernels).size(), kernels.size() / 2) << "the merges compress the training text";
}

TEST(BpeTrainer, WritesTokenizerConfigForTransformers) {
  const Tokenizer t = trainByteLevelBpe({"hello"}, withVocab(270));
  const Json config = Json::parse(tokenizerConfigJson(t));
  EXPECT_EQ(config["tokenizer_class"], "PreTrainedTokenizerFast");
  EXPECT_EQ(config["eos_token"], "<|im_end|>");
  EXPECT_EQ(config["pad_token"], "<|pad|>");
  EXPECT_TRUE(config["bos_token"].is_null());
  EXPECT_EQ(config["chat_template"], kChatMlTemplate);
  EXPECT_EQ(config["added_tokens_decoder"]["1"]["content"], "<|im_start|>");
  EXPECT_EQ(config["added_tokens_decoder"]["1"]["special"], true);
  TokenizerConfigOptions wrong;
  wrong.eosToken = "hello";
  EXPECT_THROW(tokenizerConfigJson(t, wrong), TokenizerError) << "eos must be a special token";
}

TEST(BpeTrainer, RefusesBadOptions) {
  EXPECT_THROW(trainByteLevelBpe({"x"}, withVocab(259)), TokenizerError) << "smaller than specials + 256";
  BpeTrainingOptions duplicate = withVocab(300);
  duplicate.specialTokens = {"<a>", "<a>"};
  EXPECT_THROW(trainByteLevelBpe({"x"}, duplicate), TokenizerError);
  BpeTrainingOptions empty = withVocab(300);
  empty.specialTokens = {""};
  EXPECT_THROW(trainByteLevelBpe({"x"}, empty), TokenizerError);
  BpeTrainingOptions none = withVocab(256);
  none.specialTokens = {};
  EXPECT_EQ(trainByteLevelBpe({}, none).vocabSize(), 256u) << "no texts, no specials: the byte symbols alone";
}

// Hugging Face's BpeTrainer and ours on the same texts and settings give the same vocabulary and
// merges (hf-small: texts/, vocab 600, minimum frequency 2; scripts/gpu/tokenizer-fixtures.py).
TEST(BpeTrainer, SameMergesAsHuggingFaceOnTheFixtureTexts) {
  const auto hf = fixtureDir() / "hf-small" / "tokenizer.json";
  if (!std::filesystem::exists(hf))
    GTEST_SKIP() << hf << " is made on the GPU host (scripts/gpu/tokenizer-fixtures.sh); not there yet";
  const auto theirs = nlohmann::json::parse(readBytes(hf)); // compared without regard to key order
  std::vector<std::string> texts;
  for (const auto &entry : std::filesystem::directory_iterator(fixtureDir() / "texts"))
    texts.push_back(readBytes(entry.path()));
  const auto ours = nlohmann::json::parse(trainByteLevelBpe(texts, withVocab(600)).toJson());
  EXPECT_EQ(ours["model"]["vocab"], theirs["model"]["vocab"]);
  EXPECT_EQ(ours["model"]["merges"], theirs["model"]["merges"]);
  EXPECT_EQ(ours["added_tokens"], theirs["added_tokens"]);
}

// The same on the repository's sources (hf-repo): the files as they were trained on, from the working tree or,
// for a file edited since, from git at the fixtures' commit.
TEST(BpeTrainer, SameMergesAsHuggingFaceOnTheRepositorySources) {
  const auto manifest = fixtureDir() / "hf-repo" / "training-files.json";
  if (!std::filesystem::exists(manifest))
    GTEST_SKIP() << manifest << " is made on the GPU host (scripts/gpu/tokenizer-fixtures.sh); not there yet";
  std::vector<std::string> texts;
  const Json files = readJson(manifest)["files"];
  for (const auto &entry : files.items()) {
    auto text = recordedSource(entry.key(), entry.value().get<std::string>());
    if (!text)
      GTEST_SKIP() << entry.key() << " changed since hf-repo was trained and its recorded version is not in this "
                   << "checkout's git history (repo-sources.json)";
    texts.push_back(std::move(*text));
  }
  const auto theirs = nlohmann::json::parse(readBytes(fixtureDir() / "hf-repo" / "tokenizer.json"));
  const auto ours = nlohmann::json::parse(trainByteLevelBpe(texts, withVocab(theirs["model"]["vocab"].size())).toJson());
  EXPECT_EQ(ours["model"]["vocab"], theirs["model"]["vocab"]);
  EXPECT_EQ(ours["model"]["merges"], theirs["model"]["merges"]);
}

} // namespace
} // namespace cudaperf::learn::testing
