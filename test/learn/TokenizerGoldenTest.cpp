// The ids and decoded texts Hugging Face tokenizers gave (test/learn/fixtures/tokenizer/expected,
// written by scripts/gpu/tokenizer-fixtures.py or scripts/tokenizer-expected.js), replayed: every
// tokenizer there, under every variant, on the adversarial cases, the stored texts and the
// repository's source files as they were then (from git history for those edited since).
#include "TokenizerFixtures.h"

#include <gtest/gtest.h>

namespace cudaperf::learn::testing {
namespace {

std::vector<std::filesystem::path> expectedFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(fixtureDir() / "expected"))
    if (entry.path().extension() == ".json")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string firstDifference(const std::vector<int32_t> &ours, const std::vector<int32_t> &theirs) {
  size_t i = 0;
  while (i < ours.size() && i < theirs.size() && ours[i] == theirs[i])
    ++i;
  const auto window = [&](const std::vector<int32_t> &ids) {
    std::string s;
    for (size_t k = i >= 2 ? i - 2 : 0; k < std::min(ids.size(), i + 3); ++k)
      s += std::to_string(ids[k]) + " ";
    return s;
  };
  return "lengths " + std::to_string(ours.size()) + " vs " + std::to_string(theirs.size()) +
         ", first difference at " + std::to_string(i) + ": ours [" + window(ours) + "] Hugging Face [" +
         window(theirs) + "]";
}

TEST(TokenizerGolden, FixturesArePresent) {
  const auto files = expectedFiles();
  ASSERT_FALSE(files.empty()) << "no expected/*.json in " << fixtureDir();
  const auto cases = fixtureCases();
  EXPECT_GE(cases.size(), 100u);
  EXPECT_EQ(cases.front(), "") << "the empty string is the first case";
}

TEST(TokenizerGolden, CasesGiveHuggingFaceIdsAndTexts) {
  const auto cases = fixtureCases();
  for (const auto &file : expectedFiles()) {
    const Json expected = readJson(file);
    const std::string tokenizerName = std::filesystem::path(expected["tokenizer"].get<std::string>()).parent_path();
    for (const auto &variant : expected["variants"].items()) {
      SCOPED_TRACE(file.filename().string() + " variant " + variant.key() + " (" + expected["producer"].get<std::string>() + ")");
      const Tokenizer tokenizer = variantTokenizer(tokenizerName, variant.key());
      const Json &entries = variant.value()["cases"];
      ASSERT_EQ(entries.size(), cases.size()) << "cases.json changed since the expected ids were written";
      int failures = 0;
      for (size_t i = 0; i < cases.size() && failures < 10; ++i) {
        const Json &entry = entries[i];
        const auto theirs = entry["ids"].get<std::vector<int32_t>>();
        const auto ours = tokenizer.encode(cases[i]);
        const std::string decoded = entry.value("decoded", cases[i]);
        const std::string skipped = entry.value("decoded_skip_special", decoded);
        bool same = ours == theirs;
        EXPECT_TRUE(same) << "case " << i << " " << escaped(cases[i]) << ": " << firstDifference(ours, theirs);
        EXPECT_EQ(escaped(tokenizer.decode(theirs)), escaped(decoded)) << "case " << i << " decoded";
        EXPECT_EQ(escaped(tokenizer.decode(theirs, true)), escaped(skipped)) << "case " << i << " decoded, skipping special tokens";
        if (entry.contains("pretokens")) {
          const auto pieces = entry["pretokens"].get<std::vector<std::string>>();
          same = same && tokenizer.preTokenize(cases[i]) == pieces;
          EXPECT_EQ(tokenizer.preTokenize(cases[i]), pieces) << "case " << i << " " << escaped(cases[i]) << " pre-tokens";
        }
        if (entry.contains("ids_plain")) {
          const auto plain = entry["ids_plain"].get<std::vector<int32_t>>();
          same = same && tokenizer.encode(cases[i], false) == plain;
          EXPECT_EQ(tokenizer.encode(cases[i], false), plain) << "case " << i << " without special tokens";
        }
        failures += same ? 0 : 1;
      }
    }
  }
}

TEST(TokenizerGolden, TextsGiveHuggingFaceIds) {
  for (const auto &file : expectedFiles()) {
    const Json expected = readJson(file);
    const std::string tokenizerName = std::filesystem::path(expected["tokenizer"].get<std::string>()).parent_path();
    for (const auto &variant : expected["variants"].items()) {
      SCOPED_TRACE(file.filename().string() + " variant " + variant.key());
      const Tokenizer tokenizer = variantTokenizer(tokenizerName, variant.key());
      for (const auto &text : variant.value()["texts"].items()) {
        const auto ours = tokenizer.encode(readBytes(fixtureDir() / "texts" / text.key()));
        if (text.value().contains("ids")) {
          const auto theirs = text.value()["ids"].get<std::vector<int32_t>>();
          EXPECT_TRUE(ours == theirs) << text.key() << ": " << firstDifference(ours, theirs);
        } else {
          EXPECT_EQ(ours.size(), text.value()["count"].get<size_t>()) << text.key();
          EXPECT_EQ(idsDigest(ours), text.value()["digest"].get<std::string>()) << text.key();
        }
      }
    }
  }
}

// The repository's files as they were when the ids were written (recordedSource: the working tree, else git at the
// fixtures' commit); a file found in neither is skipped.
TEST(TokenizerGolden, RepositorySourcesGiveHuggingFaceIds) {
  for (const auto &file : expectedFiles()) {
    const Json expected = readJson(file);
    if (!expected.contains("repo_files"))
      continue;
    const std::string tokenizerName = std::filesystem::path(expected["tokenizer"].get<std::string>()).parent_path();
    std::vector<std::pair<std::string, std::string>> unchanged; // path, text
    for (const auto &entry : expected["repo_files"].items())
      if (auto text = recordedSource(entry.key(), entry.value().get<std::string>()))
        unchanged.emplace_back(entry.key(), std::move(*text));
    SCOPED_TRACE(file.filename().string() + ": " + std::to_string(unchanged.size()) + " of " +
                 std::to_string(expected["repo_files"].size()) + " files as recorded");
    ASSERT_FALSE(unchanged.empty()) << "every recorded source file changed: regenerate the fixture";
    for (const auto &variant : expected["variants"].items()) {
      if (!variant.value().contains("repo"))
        continue;
      const Tokenizer tokenizer = variantTokenizer(tokenizerName, variant.key());
      int differing = 0;
      for (const auto &[path, text] : unchanged) {
        const Json &theirs = variant.value()["repo"][path];
        const auto ours = tokenizer.encode(text);
        if (ours.size() != theirs[0].get<size_t>() || idsDigest(ours) != theirs[1].get<std::string>()) {
          ++differing;
          ADD_FAILURE() << variant.key() << ": " << path << ": " << ours.size() << " ids, Hugging Face "
                        << theirs[0].get<size_t>() << " (digests " << idsDigest(ours) << " vs "
                        << theirs[1].get<std::string>() << ")";
        }
        if (differing >= 10)
          break;
      }
    }
  }
}

} // namespace
} // namespace cudaperf::learn::testing
