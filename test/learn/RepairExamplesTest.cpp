// SFT's repair examples (include/cudaperf/Learn/RepairExamples.h, docs/training.md "Repair examples"):
// the mutations are deterministic and of the shape claimed, the feedback is lib/Reward's wording, and the
// predicted nvcc logs equal what nvcc printed: on the H200 for RL answers cut at the token cap
// (fixtures/repair/h200-rl-3-cut-answers.jsonl) and on this machine for the shipped tasks' mutations
// (fixtures/repair/shipped-nvcc.jsonl, written by repair-nvcc-test.sh with CUDAPERF_UPDATE_GOLDEN=1).
// No compiler runs here; repair-nvcc-test.sh compiles a sample of the generated dataset's with nvcc.
#include "cudaperf/Learn/RepairExamples.h"
#include "cudaperf/Learn/Prompt.h"
#include "cudaperf/Reward/Feedback.h"
#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Sha256.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace cudaperf;
using namespace cudaperf::learn;
namespace fs = std::filesystem;

namespace {

const std::string kSource = CUDAPERF_SOURCE_DIR;
const std::string kFixtures = kSource + "/test/learn/fixtures/repair";

std::string readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<support::Json> readLines(const fs::path &path) {
  std::vector<support::Json> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) rows.push_back(support::parseJson(line, path.string()));
  return rows;
}

struct ShippedTask {
  std::string name; // relative to data/tasks
  runtime::Task task;
  std::vector<std::string> files, sources;
};

// Every shipped task with implementations (data/tasks and data/tasks/pytorch), in name order.
const std::vector<ShippedTask> &shippedTasks() {
  static const std::vector<ShippedTask> tasks = [] {
    std::vector<ShippedTask> out;
    std::vector<std::string> names;
    for (const std::string &root : {std::string(""), std::string("pytorch/")})
      for (const auto &e : fs::directory_iterator(kSource + "/data/tasks/" + root))
        if (fs::exists(e.path() / "task.json") && fs::is_directory(e.path() / "impls"))
          names.push_back(root + e.path().filename().string());
    std::sort(names.begin(), names.end());
    for (const std::string &n : names) {
      ShippedTask t;
      t.name = n;
      t.task = loadPolicyTask(kSource + "/data/tasks/" + n).task;
      for (const auto &e : fs::directory_iterator(kSource + "/data/tasks/" + n + "/impls"))
        if (e.path().extension() == ".cu") t.files.push_back("impls/" + e.path().filename().string());
      std::sort(t.files.begin(), t.files.end());
      for (const std::string &f : t.files) t.sources.push_back(readText(kSource + "/data/tasks/" + n + "/" + f));
      out.push_back(std::move(t));
    }
    return out;
  }();
  return tasks;
}

std::vector<std::string> othersThan(const std::vector<std::string> &all, size_t i) {
  std::vector<std::string> others;
  for (size_t j = 0; j < all.size(); ++j)
    if (j != i) others.push_back(all[j]);
  return others;
}

int errorsDetected(const std::string &log) {
  std::smatch m;
  static const std::regex count("([0-9]+) errors? detected in the compilation of \"shim.cu\"");
  return std::regex_search(log, m, count) ? std::stoi(m[1]) : -1;
}

const char *kFeedbackHead = "Outcome: compile_error (reward -0.80).\nnvcc failed:\n";

} // namespace

TEST(RepairExamples, TruncationsArePrefixesCutAtLineEndsInsideAFunction) {
  size_t total = 0;
  for (const ShippedTask &t : shippedTasks())
    for (const std::string &source : t.sources)
      for (const BrokenAnswer &b : truncations(t.task, source)) {
        ++total;
        SCOPED_TRACE(t.name + " line " + std::to_string(b.line));
        EXPECT_EQ(b.mutation, RepairMutation::Truncation);
        ASSERT_LT(b.source.size(), source.size());
        EXPECT_EQ(source.compare(0, b.source.size(), b.source), 0) << "not a prefix";
        EXPECT_EQ(b.source.back(), '\n');
        EXPECT_EQ(size_t(std::count(b.source.begin(), b.source.end(), '\n')), size_t(b.line));
        EXPECT_GE(b.openBlocks, 1);
        // The shim's definition inside the open block, then one `expected a "}"` per open block.
        EXPECT_EQ(b.compileLog.rfind("shim.cu(5): error: linkage specification is not allowed\n", 0), 0u);
        EXPECT_EQ(errorsDetected(b.compileLog), 2 + b.openBlocks);
        std::string hint = "[cudaperf-eval] shim.cu calls the entry point; every implementation must define\n  ";
        EXPECT_NE(b.compileLog.find(hint + runtime::entrySignature(t.task) + "\n"), std::string::npos);
        EXPECT_EQ(truncationLog(t.task, b.source), b.compileLog); // the same prediction from the cut text alone
        EXPECT_TRUE(b.feedback.empty());
      }
  EXPECT_GT(total, 100u);
}

TEST(RepairExamples, UndeclaredIdentifierReplacesOneUseOfAParameter) {
  size_t total = 0;
  for (const ShippedTask &t : shippedTasks())
    for (size_t i = 0; i < t.sources.size(); ++i) {
      const std::string &source = t.sources[i];
      for (const BrokenAnswer &b : undeclaredIdentifiers(t.task, source, othersThan(t.sources, i))) {
        ++total;
        SCOPED_TRACE(t.name + " line " + std::to_string(b.line) + " " + b.replaced + " -> " + b.identifier);
        EXPECT_EQ(b.mutation, RepairMutation::UndeclaredIdentifier);
        EXPECT_NE(b.identifier, b.replaced);
        // Exactly one token differs: same prefix and suffix around it.
        size_t prefix = 0;
        while (prefix < source.size() && prefix < b.source.size() && source[prefix] == b.source[prefix]) ++prefix;
        size_t start = prefix;
        while (start > 0 && (std::isalnum(static_cast<unsigned char>(source[start - 1])) || source[start - 1] == '_'))
          --start;
        EXPECT_EQ(source.substr(start, b.replaced.size()), b.replaced);
        EXPECT_EQ(b.source.substr(start, b.identifier.size()), b.identifier);
        EXPECT_EQ(source.substr(start + b.replaced.size()), b.source.substr(start + b.identifier.size()));
        EXPECT_EQ(b.compileLog.rfind("candidate.cu(" + std::to_string(b.line) + "): error: identifier \"" +
                                         b.identifier + "\" is undefined\n",
                                     0),
                  0u);
        EXPECT_EQ(errorsDetected(b.compileLog), 1);
        EXPECT_EQ(b.compileLog.find("shim.cu("), std::string::npos); // no entry-point hint
      }
    }
  EXPECT_GT(total, 100u);
}

TEST(RepairExamples, ChoiceIsAFunctionOfSeedAndTask) {
  std::set<std::string> kinds;
  for (const ShippedTask &t : shippedTasks()) {
    SCOPED_TRACE(t.name);
    std::optional<RepairChoice> a = chooseRepair(t.task, t.sources, 0), b = chooseRepair(t.task, t.sources, 0);
    ASSERT_TRUE(a && b) << "every shipped task has one";
    EXPECT_EQ(a->implementation, b->implementation);
    EXPECT_EQ(a->broken.source, b->broken.source);
    EXPECT_EQ(a->broken.compileLog, b->broken.compileLog);
    EXPECT_EQ(a->broken.feedback, b->broken.feedback);
    EXPECT_NE(a->broken.source, t.sources[a->implementation]);
    kinds.insert(repairMutationName(a->broken.mutation));
    // Another seed may choose otherwise; over 16 seeds at least two different answers.
    std::set<std::string> broken;
    for (uint64_t seed = 0; seed < 16; ++seed) broken.insert(chooseRepair(t.task, t.sources, seed)->broken.source);
    EXPECT_GE(broken.size(), 2u);
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"truncation", "undeclared_identifier"}));
}

TEST(RepairExamples, FeedbackIsTheRewardsWordingOfTheLog) {
  for (const ShippedTask &t : shippedTasks()) {
    std::optional<RepairChoice> c = chooseRepair(t.task, t.sources, 0);
    ASSERT_TRUE(c);
    SCOPED_TRACE(t.name);
    EXPECT_EQ(c->broken.feedback, repairFeedback(t.task, c->broken.compileLog));
    // lib/Reward's compile-error feedback: the outcome line, then nvcc's first three errors (feedback.md).
    std::string expected = kFeedbackHead + reward::trimCompileLog(c->broken.compileLog, 3);
    ASSERT_LE(expected.size(), 1500u); // feedback.max_chars: nothing cut
    EXPECT_EQ(c->broken.feedback, expected);
  }
}

// The example SFT builds: the prompt holds the broken answer and its feedback, the answer is the intact one.
TEST(RepairExamples, PromptCarriesTheBrokenAnswerAndTheFeedback) {
  const ShippedTask &t = shippedTasks().front();
  PolicyTask task = loadPolicyTask(kSource + "/data/tasks/" + t.name);
  std::optional<RepairChoice> c = chooseRepair(task.task, t.sources, 0);
  ASSERT_TRUE(c);
  std::string prompt = renderPolicyPrompt(policyMessages(task, {{c->broken.source, c->broken.feedback, false}}));
  EXPECT_NE(prompt.find(candidateAnswer(c->broken.source)), std::string::npos);
  EXPECT_NE(prompt.find(feedbackMessage(c->broken.feedback)), std::string::npos);
  EXPECT_EQ(prompt.find(candidateAnswer(t.sources[c->implementation])), std::string::npos);
}

// nvcc on the H200 (RL run 3, data/eval-runs/2026-12-02-h200-rl-3): the four answers of the run that the
// token cap cut right after a complete line inside a function; the feedback the RL environment stored for
// them is the one predicted from the cut text.
TEST(RepairExamples, PredictionEqualsTheH200sFeedbackForAnswersCutAtTheTokenCap) {
  std::vector<support::Json> rows = readLines(kFixtures + "/h200-rl-3-cut-answers.jsonl");
  ASSERT_EQ(rows.size(), 4u);
  for (const support::Json &r : rows) {
    SCOPED_TRACE(r["task"].get<std::string>());
    runtime::Task task =
        runtime::parseTask(r["task_json"].get<std::string>(), "/nonexistent/" + r["task"].get<std::string>(), false);
    std::optional<std::string> log = truncationLog(task, r["source"].get<std::string>());
    ASSERT_TRUE(log);
    EXPECT_EQ(repairFeedback(task, *log), r["feedback"].get<std::string>());
  }
}

// nvcc on this machine (13.0, the H200 host's version): logs it printed for the shipped tasks' mutations.
TEST(RepairExamples, PredictionEqualsNvccsLogForTheShippedTasks) {
  std::vector<support::Json> rows = readLines(kFixtures + "/shipped-nvcc.jsonl");
  ASSERT_GE(rows.size(), 35u);
  std::map<std::string, const ShippedTask *> byName;
  for (const ShippedTask &t : shippedTasks()) byName[t.name] = &t;
  size_t chosen = 0;
  for (const support::Json &r : rows) {
    std::string name = r["task"].get<std::string>(), file = r["implementation"].get<std::string>();
    SCOPED_TRACE(name + " " + file + " " + r["mutation"].get<std::string>() + " line " +
                 std::to_string(r["line"].get<int>()));
    ASSERT_TRUE(byName.count(name));
    const ShippedTask &t = *byName[name];
    size_t i = size_t(std::find(t.files.begin(), t.files.end(), file) - t.files.begin());
    ASSERT_LT(i, t.files.size());
    std::vector<BrokenAnswer> found = r["mutation"] == "truncation"
                                          ? truncations(t.task, t.sources[i])
                                          : undeclaredIdentifiers(t.task, t.sources[i], othersThan(t.sources, i));
    auto it = std::find_if(found.begin(), found.end(), [&](const BrokenAnswer &b) {
      return support::sha256Hex(b.source) == r["source_sha256"].get<std::string>();
    });
    ASSERT_NE(it, found.end()) << "the mutation is no longer made";
    EXPECT_EQ(it->line, r["line"].get<int>());
    EXPECT_EQ(it->identifier, r.value("identifier", std::string()));
    EXPECT_EQ(it->compileLog, r["nvcc_log"].get<std::string>());
    EXPECT_EQ(repairFeedback(t.task, it->compileLog), r["reward_feedback"].get<std::string>());
    if (r.value("chosen", false)) {
      ++chosen;
      std::optional<RepairChoice> c = chooseRepair(t.task, t.sources, 0);
      ASSERT_TRUE(c);
      EXPECT_EQ(c->broken.source, it->source);
    }
  }
  EXPECT_EQ(chosen, shippedTasks().size());
}

// Where nvcc's text is not certain, nothing is predicted.
TEST(RepairExamples, NothingPredictedWhereTheLogIsNotCertain) {
  const runtime::Task &task = shippedTasks().front().task;
  auto cut = [&](const std::string &body) {
    return truncationLog(task, "#include <cuda_runtime.h>\n" + body);
  };
  EXPECT_TRUE(cut("__global__ void k(float *x, int n) {\n  int i = threadIdx.x;\n"));
  EXPECT_TRUE(cut("__global__ void k(float *x, int n) { // a comment\n  if (n > 0) {\n    x[0] = 1;\n"));
  // A line that ends mid-statement, inside parentheses, a non-void function (nvcc adds a warning),
  // a do, a switch, an initializer, a block comment on a brace line, a header macro on a brace line,
  // a launch-bounds macro, a file-scope struct.
  EXPECT_FALSE(cut("__global__ void k(float *x, int n) {\n  int i = threadIdx.x +\n"));
  EXPECT_FALSE(cut("__global__ void k(float *x, int n) {\n  k2(x,\n    n);\n  f(x,\n"));
  EXPECT_FALSE(cut("__device__ float f(float x) {\n  float y = x;\n"));
  EXPECT_FALSE(cut("__global__ void k(float *x, int n) {\n  do {\n    n--;\n"));
  EXPECT_FALSE(cut("__global__ void k(float *x, int n) {\n  switch (n) {\n  case 0:\n    x[0] = 1;\n"));
  EXPECT_FALSE(cut("__global__ void k(float *x, int n) {\n  float v[2] = {1, 2};\n  float4 w = {\n"));
  EXPECT_FALSE(cut("__global__ void k(float *x, int n) { /* body */\n  x[0] = 1;\n"));
  EXPECT_FALSE(cut("__global__ void k(float *x, int n) {\n  for (float v = -INFINITY; v < 0; v += 1) {\n"
                   "    x[0] = v;\n"));
  EXPECT_FALSE(cut("__global__ void __launch_bounds__(256) k(float *x, int n) {\n  x[0] = 1;\n"));
  EXPECT_FALSE(cut("struct S {\n  int a;\n"));
  // Macros of the file: an object-like one with a one-token body is expanded where quoted, others are not
  // quoted.
  std::optional<std::string> log =
      cut("#define TILE 16\n__global__ void k(float *x, int n) {\n  for (int i = 0; i < TILE; ++i) {\n    x[i] = 0;\n");
  ASSERT_TRUE(log);
  EXPECT_NE(log->find("\n    for (int i = 0; i < 16; ++i) {\n"), std::string::npos);
  EXPECT_NE(log->find("\n  __attribute__((global)) void k(float *x, int n) {\n"), std::string::npos);
  EXPECT_FALSE(cut("#define AT(i) x[i]\n__global__ void k(float *x, int n) {\n  for (int i = 0; i < n; ++AT(i)) {\n"
                   "    x[i] = 0;\n"));
}
