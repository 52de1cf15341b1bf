// Issue 35: the build cache on disk is bounded (trimBuildCache): least recently used entries go first,
// never one used within the grace time, never a build in progress. Synthetic entries, no compiler.
#include "cudaperf/Runtime/Build.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace cudaperf::runtime;

namespace {

struct CacheDir : testing::Test {
  std::string dir = testing::TempDir() + "/cudaperf-cache-bound-" + std::to_string(getpid()) + "-" +
                    testing::UnitTest::GetInstance()->current_test_info()->name();
  // An entry "<shard>/<key>/status" last used `ageSeconds` ago.
  std::string entry(int i, long ageSeconds, const std::string &suffix = "") {
    char key[32];
    std::snprintf(key, sizeof key, "%02x%06d", i % 7, i);
    std::string shard = dir + "/" + std::string(key, 2), path = shard + "/" + key + suffix;
    mkdir(dir.c_str(), 0755);
    mkdir(shard.c_str(), 0755);
    mkdir(path.c_str(), 0755);
    std::ofstream(path + "/status") << "ok";
    std::ofstream(path + "/impl.so") << std::string(1000, 'x');
    timespec times[2] = {{time(nullptr) - ageSeconds, 0}, {time(nullptr) - ageSeconds, 0}};
    utimensat(AT_FDCWD, (path + "/status").c_str(), times, 0);
    return path;
  }
  bool exists(const std::string &path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
  }
  void TearDown() override { std::system(("rm -rf '" + dir + "'").c_str()); }
};

TEST_F(CacheDir, KeepsTheMostRecentlyUsedWithinTheBound) {
  std::vector<std::string> paths;
  for (int i = 0; i < 30; ++i)
    paths.push_back(entry(i, 100000 - i * 100)); // entry 29 used last
  EXPECT_EQ(trimBuildCache(dir, 10, 600), 20u);
  for (int i = 0; i < 30; ++i)
    EXPECT_EQ(exists(paths[i]), i >= 20) << "entry " << i;
  EXPECT_EQ(trimBuildCache(dir, 10, 600), 0u) << "within the bound: nothing more goes";
}

TEST_F(CacheDir, NeverRemovesRecentlyUsedEntriesOrBuildsInProgress) {
  std::vector<std::string> recent;
  for (int i = 0; i < 5; ++i)
    recent.push_back(entry(i, 10));
  std::string old = entry(5, 100000);
  std::string building = entry(6, 100000, ".tmp-abc123");
  EXPECT_EQ(trimBuildCache(dir, 2, 600), 1u); // only the old one may go
  EXPECT_FALSE(exists(old));
  EXPECT_TRUE(exists(building));
  for (const std::string &p : recent)
    EXPECT_TRUE(exists(p)) << p;
}

TEST_F(CacheDir, AMissingDirectoryIsEmpty) { EXPECT_EQ(trimBuildCache(dir + "/none", 1, 0), 0u); }

TEST(BuildCacheLimit, FromTheEnvironment) {
  unsetenv("CUDAPERF_BUILD_CACHE_ENTRIES");
  EXPECT_EQ(buildCacheEntryLimit(), 2048u);
  setenv("CUDAPERF_BUILD_CACHE_ENTRIES", "16", 1);
  EXPECT_EQ(buildCacheEntryLimit(), 16u);
  setenv("CUDAPERF_BUILD_CACHE_ENTRIES", "lots", 1);
  EXPECT_EQ(buildCacheEntryLimit(), 2048u);
  unsetenv("CUDAPERF_BUILD_CACHE_ENTRIES");
}

} // namespace
