#include "cudaperf/Tool/Driver.h"
#include <gtest/gtest.h>

using namespace cudaperf;

TEST(LaunchOption, GridBlockAndSmem) {
  LaunchOverride L;
  std::string Err;
  auto K = parseLaunchOption("saxpy:4096:256:1024", L, Err);
  ASSERT_TRUE(K) << Err;
  EXPECT_EQ(*K, "saxpy");
  EXPECT_EQ(L.Grid, (Dim3{4096, 1, 1}));
  EXPECT_EQ(L.Block, (Dim3{256, 1, 1}));
  EXPECT_EQ(L.DynamicSmemBytes, 1024);
}

TEST(LaunchOption, BlockOnlyAndMultiDim) {
  LaunchOverride L;
  std::string Err;
  auto K = parseLaunchOption("tile::16x16", L, Err);
  ASSERT_TRUE(K) << Err;
  EXPECT_EQ(*K, "tile");
  EXPECT_FALSE(L.Grid);
  EXPECT_EQ(L.Block, (Dim3{16, 16, 1}));
  EXPECT_FALSE(L.DynamicSmemBytes);
}

TEST(LaunchOption, QualifiedKernelName) {
  LaunchOverride L;
  std::string Err;
  auto K = parseLaunchOption("ns::kern:8x8x2:4x4x4", L, Err);
  ASSERT_TRUE(K) << Err;
  EXPECT_EQ(*K, "ns::kern");
  EXPECT_EQ(L.Grid, (Dim3{8, 8, 2}));
  EXPECT_EQ(L.Block, (Dim3{4, 4, 4}));
  K = parseLaunchOption("ns::kern::128", L, Err);
  ASSERT_TRUE(K) << Err;
  EXPECT_EQ(*K, "ns::kern");
  EXPECT_EQ(L.Block, (Dim3{128, 1, 1}));
}

TEST(LaunchOption, Rejects) {
  LaunchOverride L;
  std::string Err;
  EXPECT_FALSE(parseLaunchOption("saxpy", L, Err));
  EXPECT_FALSE(parseLaunchOption("saxpy:1:0", L, Err));
  EXPECT_FALSE(parseLaunchOption("saxpy:1:abc", L, Err));
  EXPECT_FALSE(parseLaunchOption("saxpy::2048", L, Err)); // > 1024 threads
  EXPECT_NE(Err.find("1024"), std::string::npos);
  EXPECT_FALSE(parseLaunchOption(":1:32", L, Err));
}

TEST(ParamOption, IntegerFloatAndErrors) {
  std::string Name, Err;
  ParamValue V;
  auto K = parseParamOption("saxpy:n=1048576", Name, V, Err);
  ASSERT_TRUE(K) << Err;
  EXPECT_EQ(*K, "saxpy");
  EXPECT_EQ(Name, "n");
  EXPECT_EQ(std::get<int64_t>(V), 1048576);
  K = parseParamOption("ns::k:alpha=2.5", Name, V, Err);
  ASSERT_TRUE(K) << Err;
  EXPECT_EQ(*K, "ns::k");
  EXPECT_DOUBLE_EQ(std::get<double>(V), 2.5);
  EXPECT_FALSE(parseParamOption("saxpy:n=lots", Name, V, Err));
  EXPECT_FALSE(parseParamOption("n=3", Name, V, Err));
  EXPECT_FALSE(parseParamOption("saxpy:n", Name, V, Err));
}
