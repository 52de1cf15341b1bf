// schema::ManifestEntry (manifest.jsonl): the generator's own output reads and writes back byte for
// byte; the lighter lines tests and scripts write read and write back as the same JSON; hostile
// lines are refused with the file, line and field.
#include "cudaperf/Schema/Manifest.h"
#include "cudaperf/Support/Error.h"

#include <gtest/gtest.h>

#include <string>

using namespace cudaperf::schema;
using cudaperf::support::Json;
using cudaperf::support::SupportError;

namespace {

const std::string kInputs = std::string(CUDAPERF_SOURCE_DIR) + "/test/schema/Inputs";

// The message parseManifest throws for `text`, or "" when it reads.
std::string errorOf(const std::string &text) {
  try {
    parseManifest(text, "m.jsonl");
  } catch (const SupportError &e) {
    return e.what();
  }
  return "";
}

} // namespace

// test/schema/Inputs/dataset-manifest.jsonl is `cudaperf-dataset generate --limit 1` (every family,
// c and pytorch): the writer that produces real manifests. It reads and writes back identically.
TEST(Manifest, TheGeneratorsManifestRoundTripsByteForByte) {
  std::string text = cudaperf::support::readRegularFile(kInputs + "/dataset-manifest.jsonl");
  std::vector<ManifestEntry> entries = readManifestFile(kInputs + "/dataset-manifest.jsonl");
  ASSERT_GE(entries.size(), 40u);
  EXPECT_EQ(writeManifest(entries), text);
  size_t withImpls = 0;
  for (const ManifestEntry &e : entries) {
    EXPECT_TRUE(e.extra.empty()) << e.where << ": a key the struct does not name: " << e.extra.dump();
    EXPECT_TRUE(e.family && e.kind && e.variant && e.params && e.configs) << e.where;
    ASSERT_TRUE(e.implementations) << e.where;
    withImpls += !e.implementations->empty();
    for (const ManifestImplementation &i : *e.implementations)
      EXPECT_TRUE(i.extra.empty() && i.strategies && i.baseline && i.expected) << e.where << " " << i.file;
  }
  EXPECT_EQ(withImpls, entries.size());
  EXPECT_EQ(entries[0].where, kInputs + "/dataset-manifest.jsonl:1");
}

// The lighter lines other writers emit (test/learn/tiny-dataset.py, test/bench's fixtures,
// test/bench/test_policy_candidates.py): Python's spacing, fewer keys, an absolute or ".." dir.
TEST(Manifest, OtherWritersLinesRoundTripAsJson) {
  const char *lines[] = {
      R"({"task": "saxpy", "dir": "/src/data/tasks/saxpy", "family": "a", "kind": "c", "split": "train", )"
      R"("implementations": [{"file": "impls/baseline.cu", "strategies": [], "baseline": true, "expected": "neutral"}]})",
      R"({"task": "t1", "dir": "tasks/t1", "family": "f", "kind": "c", "split": "train"})",
      R"({"task": "t1", "dir": "../ds/tasks/t1", "split": "train"})",
      R"({"split": "test", "dir": "c/fa/t_a", "task": "t_a", "note": {"kept": [1, 2.5, "x"]}})",
  };
  for (const char *line : lines) {
    Json before = Json::parse(line);
    ManifestEntry e = ManifestEntry::fromJson(before, "line");
    EXPECT_EQ(e.toJson().dump(), before.dump()) << line;
  }
  std::vector<ManifestEntry> two = parseManifest(std::string(lines[1]) + "\n\n  \t\r\n" + lines[2] + "\n", "m.jsonl");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1].where, "m.jsonl:4"); // blank lines are skipped but counted
  EXPECT_FALSE(two[1].family.has_value());
  EXPECT_TRUE(parseManifest("", "m.jsonl").empty());
}

TEST(Manifest, HostileLinesNameFileLineAndField) {
  EXPECT_EQ(errorOf(R"({"task": "t", "dir": "d", "split": "train"})" "\n" R"({"task": "t", "dir": "d"})"),
            "m.jsonl:2: split: missing");
  EXPECT_EQ(errorOf(R"({"task": 3, "dir": "d", "split": "train"})"), "m.jsonl:1: task: expected a string, got 3");
  EXPECT_EQ(errorOf(R"({"task": "t", "dir": "d", "split": null})"), "m.jsonl:1: split: expected a string, got null");
  EXPECT_EQ(errorOf(R"({"task": "../../etc", "dir": "d", "split": "s"})"),
            "m.jsonl:1: task: \"../../etc\" holds a \"..\" component");
  EXPECT_EQ(errorOf(R"({"task": "pytorch/..", "dir": "d", "split": "s"})"),
            "m.jsonl:1: task: \"pytorch/..\" holds a \"..\" component");
  EXPECT_EQ(errorOf(R"({"task": "/etc/x", "dir": "d", "split": "s"})"),
            "m.jsonl:1: task: \"/etc/x\" is absolute (a name, not a path)");
  EXPECT_EQ(errorOf(R"({"task": "pytorch/relu", "dir": "d", "split": "s"})"), ""); // rl-cli-test.sh's keys
  EXPECT_EQ(errorOf(R"({"task": "a\u0000b", "dir": "d", "split": "s"})"),
            "m.jsonl:1: task: \"a\\u0000b\" holds a control character");
  EXPECT_EQ(errorOf(R"({"task": "t", "dir": "", "split": "s"})"), "m.jsonl:1: dir: is empty");
  EXPECT_EQ(errorOf(R"({"task": "t", "dir": "d", "split": "s", "implementations": [{"file": "impls/../../../x.cu"}]})"),
            "m.jsonl:1: implementations[0].file: \"impls/../../../x.cu\" leaves the task directory");
  EXPECT_EQ(errorOf(R"({"task": "t", "dir": "d", "split": "s", "implementations": [{"file": "/etc/passwd"}]})"),
            "m.jsonl:1: implementations[0].file: \"/etc/passwd\" is absolute (a path inside the task directory)");
  EXPECT_EQ(errorOf(R"({"task": "t", "dir": "d", "split": "s", "implementations": [{"strategies": []}]})"),
            "m.jsonl:1: implementations[0].file: missing");
  EXPECT_EQ(errorOf(R"({"task": "t", "dir": "d", "split": "s", "implementations": [{"file": "a.cu", "strategies": [1]}]})"),
            "m.jsonl:1: implementations[0].strategies[0]: expected a string, got 1");
  EXPECT_EQ(errorOf(R"({"task": "t", "dir": "d", "split": "s", "implementations": {}})"),
            "m.jsonl:1: implementations: expected an array, got an object");
  EXPECT_EQ(errorOf(R"({"task": "t", "dir": "d", "split": "s", "params": [1]})"),
            "m.jsonl:1: params: expected an object, got an array");
  EXPECT_EQ(errorOf(R"({"task": "t", "dir": "d", "split": "s", "configs": "small"})"),
            "m.jsonl:1: configs: expected an array, got \"small\"");
  EXPECT_EQ(errorOf("[1, 2]"), "m.jsonl:1: expected a JSON object per line, got [1,2]");
  EXPECT_EQ(errorOf(std::string(R"({"task": ")") + std::string(300, 'x') + R"(", "dir": "d", "split": "s"})")
                .find("is longer than 200 bytes") != std::string::npos,
            true);
  std::string notJson = errorOf("{\"task\": \"t\",\n");
  EXPECT_EQ(notJson.rfind("m.jsonl:1:", 0), 0u) << notJson;
  // A huge number where a name belongs is a wrong type, not a crash.
  EXPECT_EQ(errorOf(R"({"task": 1e308, "dir": "d", "split": "s"})"), "m.jsonl:1: task: expected a string, got 1e+308");
}

TEST(Manifest, AReaderThatNeedsTheImplementationsSaysWhichLineHasNone) {
  std::vector<ManifestEntry> entries = parseManifest(R"({"task": "t", "dir": "d", "split": "s"})" "\n", "m.jsonl");
  try {
    entries[0].requireImplementations();
    FAIL() << "no implementations accepted";
  } catch (const SupportError &e) {
    EXPECT_EQ(std::string(e.what()),
              "m.jsonl:1: implementations: missing (this reader needs the task's implementation files)");
  }
}

TEST(Manifest, NamesAndPaths) {
  EXPECT_EQ(plainNameProblem("map_expr_f32_000"), "");
  EXPECT_EQ(plainNameProblem("kernelbench-level1.19"), "");
  EXPECT_NE(plainNameProblem(""), "");
  EXPECT_NE(plainNameProblem("a\\b"), "");
  EXPECT_EQ(relativePathProblem("impls/baseline.cu"), "");
  EXPECT_EQ(relativePathProblem("impls/..x.cu"), ""); // ".." only as a whole component
  EXPECT_NE(relativePathProblem(".."), "");
  EXPECT_NE(relativePathProblem("a/../../b"), "");
  EXPECT_NE(relativePathProblem("a/.."), "");
}
