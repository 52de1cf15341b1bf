// The cudaperf-eval command line: exit codes and compile-only output everywhere; a real
// evaluation where a CUDA driver is present (skipped otherwise).
#include "cudaperf/Runtime/Json.h"
#include "cudaperf/Runtime/Subprocess.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

using namespace cudaperf;
using namespace cudaperf::runtime;

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
  json::Value doc = json::parse(r.output);
  EXPECT_EQ(doc.get("outcome")->asString(), "ok");
  EXPECT_TRUE(doc.get("compile")->get("ok")->asBool());
  EXPECT_EQ(doc.get("compile")->get("arch")->asString(), "sm_90");
  EXPECT_EQ(doc.get("task")->asString(), "saxpy");
  EXPECT_EQ(doc.get("candidate_sha256")->asString().size(), 64u);
}

TEST(EvalToolGpu, EvaluatesAGoodCandidate) {
  if (!haveDriver())
    GTEST_SKIP() << "no CUDA driver (libcuda.so.1) on this machine";
  ProcessResult r = evalTool({src("data/tasks/vector_add"), src("data/tasks/vector_add/impls/vectorized.cu")});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json::Value doc = json::parse(r.output);
  EXPECT_EQ(doc.get("outcome")->asString(), "ok") << r.output;
  ASSERT_TRUE(doc.get("speedup")->isNumber());
  EXPECT_GT(doc.get("speedup")->asNumber(), 0.0);
  for (const json::Value &c : doc.get("configs")->asArray()) {
    EXPECT_TRUE(c.get("correctness")->get("pass")->asBool());
    EXPECT_GE(c.get("candidate")->get("runs")->asInteger(), 20);
    EXPECT_GE(c.get("correctness")->get("checks")->asArray().size(), 3u);
  }
}

TEST(EvalToolGpu, HalfWrittenOutputIsAWrongAnswer) {
  if (!haveDriver())
    GTEST_SKIP() << "no CUDA driver (libcuda.so.1) on this machine";
  ProcessResult r = evalTool({src("data/tasks/vector_add"), src("test/runtime/bad/half_output.cu")});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(json::parse(r.output).get("outcome")->asString(), "wrong_answer");
}
