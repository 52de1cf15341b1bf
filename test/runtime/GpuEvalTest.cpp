// The cudaperf-eval command line: exit codes and compile-only output everywhere; a real
// evaluation where a CUDA driver is present (skipped otherwise).
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Subprocess.h"
#include "TaskWithoutBaseline.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

using namespace cudaperf;
using namespace cudaperf::support;

namespace {
std::string src(const std::string &rel) { return std::string(CUDAPERF_SOURCE_DIR) + "/" + rel; }

ProcessResult evalTool(std::vector<std::string> args, double timeout = 600) {
  args.insert(args.begin(), CUDAPERF_EVAL);
  ProcessOptions o;
  o.timeoutSeconds = timeout;
  o.maxCapturedBytes = 1 << 20;
  o.extraEnv = {"CUDAPERF_CACHE_DIR=" + testing::TempDir() + "/cudaperf-tool-cache"};
  return runProcess(args, o);
}

bool haveDriver() {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return h != nullptr;
}
} // namespace

TEST(EvalTool, ExitCodes) {
  EXPECT_EQ(evalTool({}).exitCode, 2);
  EXPECT_EQ(evalTool({"--bogus"}).exitCode, 2);
  ProcessResult bad = evalTool({src("test/runtime"), src("data/tasks/vector_add/impls/baseline.cu")});
  EXPECT_EQ(bad.exitCode, 3);
  EXPECT_NE(bad.output.find("task.json"), std::string::npos);
  EXPECT_EQ(evalTool({src("data/tasks/vector_add"), "/nonexistent.cu"}).exitCode, 4);
  EXPECT_EQ(evalTool({"--validate", src("data/tasks/histogram")}).exitCode, 0);
}

TEST(EvalTool, CompileOnlyWritesAResultDocument) {
  ProcessResult r = evalTool({src("data/tasks/saxpy"), src("data/tasks/saxpy/impls/vectorized.cu"), "--compile-only",
                              "--arch", "sm_90"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  Json doc = parseJson(r.output);
  EXPECT_EQ(member(doc, "outcome")->get<std::string>(), "ok");
  EXPECT_TRUE(member(doc, "compile")->at("ok").get<bool>());
  EXPECT_EQ(member(doc, "compile")->at("arch").get<std::string>(), "sm_90");
  EXPECT_EQ(member(doc, "task")->get<std::string>(), "saxpy");
  EXPECT_EQ(member(doc, "candidate_sha256")->get<std::string>().size(), 64u);
}

TEST(EvalTool, APyTorchTaskWithoutABaselineIsAccepted) {
  TaskWithoutBaseline copy;
  ProcessResult v = evalTool({"--validate", copy.dir});
  EXPECT_EQ(v.exitCode, 0) << v.output;
  ProcessResult r = evalTool({copy.dir, copy.candidate, "--compile-only", "--arch", "sm_90"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  Json doc = parseJson(r.output);
  EXPECT_EQ(member(doc, "outcome")->get<std::string>(), "ok") << r.output;
  EXPECT_EQ(member(doc, "task")->get<std::string>(), "relu");
}

TEST(EvalToolGpu, EvaluatesAGoodCandidate) {
  if (!haveDriver())
    GTEST_SKIP() << "no CUDA driver (libcuda.so.1) on this machine";
  ProcessResult r = evalTool({src("data/tasks/vector_add"), src("data/tasks/vector_add/impls/vectorized.cu")});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  Json doc = parseJson(r.output);
  EXPECT_EQ(member(doc, "outcome")->get<std::string>(), "ok") << r.output;
  ASSERT_TRUE(member(doc, "speedup")->is_number());
  EXPECT_GT(member(doc, "speedup")->get<double>(), 0.0);
  for (const Json &c : doc.at("configs")) {
    EXPECT_TRUE(member(c, "correctness")->at("pass").get<bool>());
    EXPECT_GE(member(c, "candidate")->at("runs").get<int64_t>(), 20);
    EXPECT_GE(member(c, "correctness")->at("checks").size(), 3u);
  }
}

TEST(EvalToolGpu, HalfWrittenOutputIsAWrongAnswer) {
  if (!haveDriver())
    GTEST_SKIP() << "no CUDA driver (libcuda.so.1) on this machine";
  ProcessResult r = evalTool({src("data/tasks/vector_add"), src("test/runtime/bad/half_output.cu")});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(parseJson(r.output).at("outcome").get<std::string>(), "wrong_answer");
}
