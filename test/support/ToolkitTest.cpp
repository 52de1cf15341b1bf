// Toolkit and cache lookup: the order of roots and the environment variables that steer them.
#include "cudaperf/Support/Toolkit.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace cudaperf::support;

namespace {

// Sets an environment variable for one test and restores it after.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old, had_ = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::string old_;
  bool had_ = false;
};

} // namespace

TEST(Toolkit, RootsInOrderWithoutDuplicates) {
  ScopedEnv a("CUDA_PATH", "/opt/a"), b("CUDA_HOME", "/opt/a");
  EXPECT_EQ(toolkitRoots("/x", {"/built", ""}),
            (std::vector<std::string>{"/x", "/opt/a", "/built", "/usr/local/cuda"}));
  ScopedEnv c("CUDA_PATH", nullptr), d("CUDA_HOME", "/opt/h");
  EXPECT_EQ(toolkitRoots(), (std::vector<std::string>{"/opt/h", "/usr/local/cuda"}));
}

TEST(Toolkit, FindsNvccAndHeadersUnderARoot) {
  std::string root = testing::TempDir() + "/cudaperf-toolkit-test";
  mkdir(root.c_str(), 0755);
  mkdir((root + "/bin").c_str(), 0755);
  mkdir((root + "/include").c_str(), 0755);
  std::ofstream(root + "/bin/nvcc") << "#!/bin/sh\n";
  chmod((root + "/bin/nvcc").c_str(), 0755);
  std::ofstream(root + "/include/cuda_runtime.h") << "\n";
  ScopedEnv n("CUDAPERF_NVCC", nullptr);
  EXPECT_EQ(findNvcc({"/no/such/root", root}), root + "/bin/nvcc");
  EXPECT_EQ(findToolkitWithHeaders({"/no/such/root", root}), root);
  EXPECT_EQ(findNvcc({root}, "/no/such/nvcc"), root + "/bin/nvcc"); // a missing override is skipped
  ScopedEnv m("CUDAPERF_NVCC", (root + "/bin/nvcc").c_str());
  EXPECT_EQ(findNvcc({"/no/such/root"}), root + "/bin/nvcc");
  EXPECT_EQ(findToolkitWithHeaders({"/no/such/root"}), "");
}

TEST(Toolkit, CacheDirectoryFollowsTheEnvironment) {
  ScopedEnv c("CUDAPERF_CACHE_DIR", "/c"), x("XDG_CACHE_HOME", "/x"), h("HOME", "/h");
  EXPECT_EQ(cacheDirectory("build"), "/c"); // shared by every cache as given
  ScopedEnv c2("CUDAPERF_CACHE_DIR", nullptr);
  EXPECT_EQ(cacheDirectory("build"), "/x/cudaperf/build");
  EXPECT_EQ(cacheDirectory(), "/x/cudaperf");
  ScopedEnv x2("XDG_CACHE_HOME", "");
  EXPECT_EQ(cacheDirectory("build"), "/h/.cache/cudaperf/build");
}
