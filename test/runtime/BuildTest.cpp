#include "cudaperf/Runtime/Build.h"

#include <gtest/gtest.h>
#include <unistd.h>

using namespace cudaperf::runtime;

namespace {
std::string src(const std::string &rel) { return std::string(CUDAPERF_SOURCE_DIR) + "/" + rel; }

struct BuildFixture : testing::Test {
  Toolchain tc = findToolchain();
  Task task = loadTask(src("data/tasks/vector_add"));
  BuildOptions options;
  void SetUp() override {
    options.cacheDir = testing::TempDir() + "/cudaperf-build-test-" + std::to_string(getpid());
  }
};
} // namespace

TEST(Shim, CallsTheEntryWithTypedArguments) {
  Task t = loadTask(src("data/tasks/saxpy"));
  std::string shim = generateEntryShim(t);
  EXPECT_NE(shim.find("#include \"candidate.cu\""), std::string::npos);
  EXPECT_NE(shim.find("saxpy(*(const int *)args[0], *(const float *)args[1], (float *)args[2], (float *)args[3], stream);"),
            std::string::npos)
      << shim;
  EXPECT_EQ(entrySignature(t), "extern \"C\" void saxpy(int n, float alpha, const float *x, float *y, cudaStream_t stream)");
}

TEST_F(BuildFixture, BuildsAndCachesByContent) {
  ASSERT_FALSE(tc.nvccVersion.empty());
  BuildResult first = buildImplementation(task, src("data/tasks/vector_add/impls/baseline.cu"), tc, options);
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.cached);
  EXPECT_GT(first.seconds, 0);
  EXPECT_NE(first.command.find("-cudart shared"), std::string::npos);
  BuildResult again = buildImplementation(task, src("data/tasks/vector_add/impls/baseline.cu"), tc, options);
  EXPECT_TRUE(again.ok);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.key, first.key);
  EXPECT_EQ(again.objectPath, first.objectPath);

  // Same source, other flags: another key.
  BuildOptions other = options;
  other.arch = "sm_80";
  EXPECT_NE(buildImplementation(task, src("data/tasks/vector_add/impls/baseline.cu"), tc, other).key, first.key);
}

TEST_F(BuildFixture, CompileErrorCarriesTheLogWithReadablePaths) {
  BuildResult r = buildImplementation(task, src("test/runtime/bad/syntax_error.cu"), tc, options);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("candidate.cu(6): error"), std::string::npos) << r.log;
  EXPECT_EQ(r.log.find(options.cacheDir), std::string::npos) << "private build paths leak into the log";
}

TEST_F(BuildFixture, WrongSignatureAndUndefinedSymbolsFailTheBuild) {
  BuildResult sig = buildImplementation(task, src("test/runtime/bad/wrong_signature.cu"), tc, options);
  EXPECT_FALSE(sig.ok);
  EXPECT_NE(sig.log.find("every implementation must define"), std::string::npos) << sig.log;
  BuildResult undef = buildImplementation(task, src("test/runtime/bad/undefined_symbol.cu"), tc, options);
  EXPECT_FALSE(undef.ok);
  EXPECT_NE(undef.log.find("helper_that_does_not_exist"), std::string::npos) << undef.log;
}

TEST_F(BuildFixture, CompileTimeLimit) {
  BuildOptions quick = options;
  quick.timeoutSeconds = 0.05;
  quick.useCache = false;
  BuildResult r = buildImplementation(task, src("data/tasks/vector_add/impls/vectorized.cu"), tc, quick);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.timedOut);
  EXPECT_NE(r.log.find("exceeded"), std::string::npos);
}

TEST_F(BuildFixture, MissingCandidate) {
  BuildResult r = buildImplementation(task, "/nonexistent.cu", tc, options);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("cannot be read"), std::string::npos);
}
