#include "cudaperf/Runtime/Task.h"
#include "TaskWithoutBaseline.h"

#include <algorithm>
#include <cstdlib>
#include <unistd.h>
#include <filesystem>
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

namespace {
const char *kPyTorch = R"({
  "name": "relu", "kind": "pytorch-to-cuda", "entry": "relu",
  "args": [
    {"name": "x", "type": "pointer", "dtype": "f32", "access": "in", "count": "batch_size * dim"},
    {"name": "out", "type": "pointer", "dtype": "f32", "access": "out", "count": "batch_size * dim"},
    {"name": "batch_size", "type": "scalar", "dtype": "i32"},
    {"name": "dim", "type": "scalar", "dtype": "i32"}
  ],
  "configs": [{"name": "small", "batch_size": 2, "dim": 7}, {"name": "large", "batch_size": 16, "dim": 4096}],
  "pytorch": {"module": "model.py", "exported": "exported/{config}.pt", "forward_args": ["x"],
              "outputs": ["out"], "shapes": {"x": ["batch_size", "dim"], "out": ["batch_size", "dim"]}}
})";

std::string replaced(std::string text, const std::string &from, const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}
} // namespace

TEST(Task, ParsesAPyTorchReference) {
  Task t = parseTask(kPyTorch, "/tasks/relu", false);
  EXPECT_EQ(t.kind, TaskKind::PyTorchToCuda);
  ASSERT_TRUE(t.pytorch.has_value());
  EXPECT_EQ(t.pytorch->forwardArgs, std::vector<std::string>{"x"});
  EXPECT_EQ(t.pytorch->outputs, std::vector<std::string>{"out"});
  ASSERT_EQ(t.pytorch->shapes.at("x").size(), 2u);
  EXPECT_EQ(t.pytorch->shapes.at("x")[1].evaluate(t.configs[1].params), 4096);
  EXPECT_EQ(t.pytorch->exportedPath(t.dir, "large"), "/tasks/relu/exported/large.pt");
}

TEST(Task, PyTorchReferenceProblems) {
  // A c-to-cuda task with a pytorch object, and a pytorch task without one.
  EXPECT_TRUE(mentions(problemsOf(replaced(kPyTorch, "pytorch-to-cuda", "c-to-cuda")), "only pytorch-to-cuda"));
  std::string bare = kPyTorch;
  bare = bare.substr(0, bare.find(",\n  \"pytorch\"")) + "}";
  EXPECT_TRUE(mentions(problemsOf(bare), "pytorch: missing"));
  // A shape whose product is not the argument's count, an output listed as a forward argument,
  // an export pattern without {config}, a path out of the task directory.
  EXPECT_TRUE(mentions(problemsOf(replaced(kPyTorch, R"("out": ["batch_size", "dim"])", R"("out": ["dim"])")),
                       "has 7 elements in configuration \"small\", the argument 14"));
  EXPECT_TRUE(mentions(problemsOf(replaced(kPyTorch, R"("forward_args": ["x"])", R"("forward_args": ["out"])")),
                       "\"out\" is not an input pointer argument"));
  EXPECT_TRUE(mentions(problemsOf(replaced(kPyTorch, "exported/{config}.pt", "exported/model.pt")), "{config}"));
  EXPECT_TRUE(mentions(problemsOf(replaced(kPyTorch, R"("module": "model.py")", R"("module": "../x.py")")),
                       "inside the task directory"));
  EXPECT_TRUE(mentions(problemsOf(replaced(kPyTorch, R"("x": ["batch_size", "dim"], )", "")), "no shape for \"x\""));
}

TEST(Task, SelectConfigsKeepsTaskOrderAndNamesUnknownOnes) {
  Task t = parseTask(kPyTorch, "/tasks/relu", false);
  selectConfigs(t, {"large"});
  ASSERT_EQ(t.configs.size(), 1u);
  EXPECT_EQ(t.configs[0].name, "large");
  Task all = parseTask(kPyTorch, "/tasks/relu", false);
  selectConfigs(all, {});
  EXPECT_EQ(all.configs.size(), 2u);
  try {
    selectConfigs(all, {"small", "huge"});
    FAIL() << "an unknown configuration was accepted";
  } catch (const TaskError &e) {
    ASSERT_EQ(e.problems.size(), 1u);
    EXPECT_NE(e.problems[0].find("no configuration \"huge\""), std::string::npos);
  }
}

TEST(Task, APyTorchTaskMayGoWithoutABaselineACToCudaTaskMayNot) {
  TaskWithoutBaseline copy;
  Task t = loadTask(copy.dir);
  EXPECT_EQ(t.kind, TaskKind::PyTorchToCuda);
  EXPECT_FALSE(t.hasBaseline());
  EXPECT_TRUE(loadTask(std::string(CUDAPERF_SOURCE_DIR) + "/data/tasks/pytorch/relu").hasBaseline());
  // The same directory as a c-to-cuda task (with a reference.c): the baseline is a problem.
  std::filesystem::copy_file(std::string(CUDAPERF_SOURCE_DIR) + "/data/tasks/saxpy/task.json", copy.dir + "/task.json",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(std::string(CUDAPERF_SOURCE_DIR) + "/data/tasks/saxpy/reference.c", copy.dir + "/reference.c");
  try {
    loadTask(copy.dir);
    FAIL() << "a c-to-cuda task without impls/baseline.cu loaded";
  } catch (const TaskError &e) {
    EXPECT_TRUE(mentions(e.problems, "impls/baseline.cu: missing (a c-to-cuda task needs")) << e.what();
  }
}

// Issue 35: hostile task files.
TEST(TaskHostile, SizeExpressionsTooDeepOrLongAreErrors) {
  std::string deep = std::string(30000, '(') + "n" + std::string(30000, ')');
  EXPECT_THROW(SizeExpr::parse(deep), SizeExprError);
  std::string terms = "n";
  for (int i = 0; i < 60000; ++i)
    terms += "+n";
  EXPECT_THROW(SizeExpr::parse(terms), SizeExprError);
  EXPECT_EQ(SizeExpr::parse("((n + 1) * 2)").evaluate({{"n", 3}}), 8);
}

TEST(TaskHostile, FlagsThatRunProgramsAreRefused) {
  unsetenv("CUDAPERF_TRUST_TASKS");
  std::string task = kGood;
  std::string evil = task;
  evil.replace(evil.find("\"-use_fast_math\""), 16, "\"-Xcompiler=-wrapper,/tmp/evil.sh\"");
  EXPECT_TRUE(mentions(problemsOf(evil), "allow-list")) << evil;
  for (const char *flag : {"-ccbin=/tmp/x", "--compiler-bindir=/tmp", "-include=/etc/passwd", "-I/etc", "@/tmp/args",
                           "-Xcompiler", "-o/tmp/x"})
    EXPECT_NE(taskFlagRefusal(flag, true), "") << flag;
  for (const char *flag : {"-O3", "-use_fast_math", "--use_fast_math", "-lineinfo", "-DN=4", "-std=c++17",
                           "-maxrregcount=64", "-lcublas", "--expt-relaxed-constexpr"})
    EXPECT_EQ(taskFlagRefusal(flag, true), "") << flag;
  EXPECT_EQ(taskFlagRefusal("-DNDEBUG", false), "");
  EXPECT_NE(taskFlagRefusal("-fplugin=/tmp/evil.so", false), "");
  setenv("CUDAPERF_TRUST_TASKS", "1", 1);
  EXPECT_EQ(taskFlagRefusal("-Xcompiler=-wrapper,/tmp/evil.sh", true), "");
  unsetenv("CUDAPERF_TRUST_TASKS");
}

TEST(TaskHostile, DevZeroAsTaskJsonIsAnError) {
  std::string dir = "/tmp/cudaperf-hostile-task-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink("/dev/zero", dir + "/task.json");
  EXPECT_THROW(loadTask(dir), TaskError);
  std::filesystem::remove_all(dir);
}

// Issue 37: the task format's shape is schema::TaskSpec's; the runtime's rules on top still hold.
TEST(TaskHostile, HugeSizesNamesAndToleranceAreRefused) {
  auto with = [](const std::string &from, const std::string &to) {
    std::string t = kGood;
    t.replace(t.find(from), from.size(), to);
    return problemsOf(t);
  };
  // A finite but huge size, and sizes whose product passes 16 GiB.
  EXPECT_TRUE(mentions(with(R"("rows": 3, "cols": 4)", R"("rows": 1e300, "cols": 4)"), "parameter 'rows' is not an integer"));
  EXPECT_TRUE(mentions(with(R"("rows": 3, "cols": 4)", R"("rows": 300000, "cols": 300000)"), "is larger than 16 GiB"));
  // Path traversal in the task's name (candidate files are named by it) and in a PyTorch path.
  EXPECT_TRUE(mentions(with(R"("name": "t", "kind")", R"("name": "../../tmp/x", "kind")"), "task.json: name: \"../../tmp/x\" holds a path separator"));
  // An infinite or negative tolerance would let any output pass.
  EXPECT_TRUE(mentions(with(R"({"atol": 0.01})", R"({"atol": -1})"), "tolerances.f32.atol"));
  // A configuration value of the wrong type.
  EXPECT_TRUE(mentions(with(R"("rows": 3, "cols": 4)", R"("rows": "3", "cols": 4)"), "configs[0].rows: parameter values must be finite numbers"));
}
