#include "cudaperf/Runtime/Task.h"

#include <algorithm>
#include <set>
#include <gtest/gtest.h>

using namespace cudaperf::runtime;

namespace {
const char *kGood = R"({
  "name": "t", "kind": "c-to-cuda", "entry": "f",
  "args": [
    {"name": "x", "type": "pointer", "dtype": "f32", "access": "in", "count": "rows * cols"},
    {"name": "y", "type": "pointer", "dtype": "u32", "access": "out", "count": "(rows + 1) / 2"},
    {"name": "rows", "type": "scalar", "dtype": "i32"},
    {"name": "cols", "type": "scalar", "dtype": "i32"},
    {"name": "scale", "type": "scalar", "dtype": "f32", "value": 0.5}
  ],
  "configs": [{"name": "a", "rows": 3, "cols": 4}, {"rows": 5, "cols": 1, "scale": 2}],
  "inputs": {"x": {"dist": "normal", "mean": 1, "std": 2}},
  "tolerances": {"f32": {"atol": 0.01}},
  "flags": ["-use_fast_math"]
})";

std::vector<std::string> problemsOf(const std::string &text) {
  try {
    parseTask(text, "/nowhere", false);
  } catch (const TaskError &e) {
    return e.problems;
  }
  return {};
}

bool mentions(const std::vector<std::string> &problems, const std::string &needle) {
  for (const auto &p : problems)
    if (p.find(needle) != std::string::npos)
      return true;
  return false;
}
} // namespace

TEST(Task, ParsesArgumentsConfigsAndDefaults) {
  Task t = parseTask(kGood, "/nowhere", false);
  ASSERT_EQ(t.args.size(), 5u);
  EXPECT_EQ(t.configs[1].name, "config1");
  EXPECT_EQ(t.counts(t.configs[0]), (std::vector<int64_t>{12, 2, 0, 0, 0}));
  EXPECT_EQ(t.counts(t.configs[1])[1], 3);
  EXPECT_DOUBLE_EQ(t.scalarValue(t.args[4], t.configs[0]), 0.5);
  EXPECT_DOUBLE_EQ(t.scalarValue(t.args[4], t.configs[1]), 2.0);
  EXPECT_EQ(t.args[0].distribution.kind, Distribution::Kind::Normal);
  EXPECT_DOUBLE_EQ(t.toleranceFor(t.args[0]).atol, 0.01);
  EXPECT_DOUBLE_EQ(t.toleranceFor(t.args[0]).rtol, 0.0); // given explicitly: unspecified part is 0
  EXPECT_DOUBLE_EQ(t.toleranceFor(t.args[1]).atol, 0.0);  // integers exact
  EXPECT_EQ(t.flags, std::vector<std::string>{"-use_fast_math"});
}

TEST(Task, ReportsEveryProblemAtOnce) {
  auto p = problemsOf(R"({
    "name": "t", "kind": "c-to-kotlin", "entry": "2f", "extra": 1,
    "args": [
      {"name": "x", "type": "pointer", "dtype": "f16", "access": "in", "count": "n +"},
      {"name": "x", "type": "scalar", "dtype": "i32"},
      {"name": "stream", "type": "scalar", "dtype": "i32", "value": 1}
    ],
    "configs": []
  })");
  EXPECT_TRUE(mentions(p, "unknown key \"extra\"")) << p.size();
  EXPECT_TRUE(mentions(p, "c-to-cuda"));
  EXPECT_TRUE(mentions(p, "\"2f\" is not a C identifier"));
  EXPECT_TRUE(mentions(p, "unknown dtype \"f16\""));
  EXPECT_TRUE(mentions(p, "args[0].count"));
  EXPECT_TRUE(mentions(p, "duplicate argument \"x\""));
  EXPECT_TRUE(mentions(p, "reserved"));
  EXPECT_TRUE(mentions(p, "no output argument"));
  EXPECT_TRUE(mentions(p, "at least one configuration"));
}

TEST(Task, ConfigurationsMustSetEverySize) {
  auto p = problemsOf(R"({"name": "t", "kind": "c-to-cuda", "entry": "f",
    "args": [{"name": "y", "type": "pointer", "dtype": "f32", "access": "out", "count": "n * m"}],
    "configs": [{"n": 4}, {"n": 0, "m": 1}, {"n": 1, "m": 2, "q": 3}, {"n": 1e10, "m": 1e10}]})");
  EXPECT_TRUE(mentions(p, "configs[0]: does not set \"m\""));
  EXPECT_TRUE(mentions(p, "configs[1]: \"y\" has 0 elements"));
  EXPECT_TRUE(mentions(p, "configs[2].q"));
  EXPECT_TRUE(mentions(p, "configs[3]"));
}

TEST(Task, BadJsonReportsLineAndColumn) {
  auto p = problemsOf("{\n \"name\": }");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("task.json:2:"), std::string::npos) << p[0];
}

TEST(Task, SizeExpressions) {
  std::map<std::string, double> env = {{"n", 10}, {"m", 3}};
  EXPECT_EQ(SizeExpr::parse("n*m + (n - 1) / 3 % 2").evaluate(env), 31);
  EXPECT_EQ(SizeExpr::parse("42").evaluate({}), 42);
  EXPECT_THROW(SizeExpr::parse("n *"), SizeExprError);
  EXPECT_THROW(SizeExpr::parse("n / (m - 3)").evaluate(env), SizeExprError);
  EXPECT_THROW(SizeExpr::parse("k").evaluate(env), SizeExprError);
  EXPECT_THROW(SizeExpr::parse("n * 4611686018427387904").evaluate(env), SizeExprError);
}

TEST(Task, ExampleTasksLoad) {
  for (const char *name : {"vector_add", "saxpy", "transpose", "reduce_sum", "matmul", "stencil2d", "softmax", "histogram"}) {
    SCOPED_TRACE(name);
    Task t = loadTask(std::string(CUDAPERF_SOURCE_DIR) + "/data/tasks/" + name);
    EXPECT_EQ(t.name, name);
    EXPECT_GE(t.configs.size(), 3u);
    auto impls = t.implNames();
    EXPECT_GE(impls.size(), 2u) << "a baseline and at least one better implementation";
    EXPECT_NE(std::find(impls.begin(), impls.end(), "baseline"), impls.end());
  }
}

TEST(Task, MissingFilesAreProblems) {
  try {
    loadTask(std::string(CUDAPERF_SOURCE_DIR) + "/test/runtime");
    FAIL();
  } catch (const TaskError &e) {
    EXPECT_NE(std::string(e.what()).find("task.json: cannot be read"), std::string::npos);
  }
}
