//===- ResourcesTest.cpp - ptxas -v logs as nvcc and NVRTC print them ----------------------===//
#include "cudaperf/Analysis/Resources.h"
#include <gtest/gtest.h>

using namespace cudaperf;

TEST(PtxasLog, NvccFormat) {
  const char *Log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z2tkILi128EEvPf' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z2tkILi128EEvPf\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 1 barriers, 512 bytes smem, 368 bytes cmem[0]\n"
      "ptxas info    : Compile time = 20.920 ms\n"
      "ptxas info    : Function properties for _Z6helperv\n" // a non-entry function
      "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function '_Z5heavyPfPKfi' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z5heavyPfPKfi\n"
      "    424 bytes stack frame, 1164 bytes spill stores, 1224 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 0 barriers, 424 bytes cumulative stack size\n";
  auto K = parsePtxasLog(Log);
  ASSERT_EQ(K.size(), 2u);
  const KernelResourceUsage &A = K.at("_Z2tkILi128EEvPf");
  EXPECT_EQ(A.Registers, 10);
  EXPECT_EQ(A.Barriers, 1);
  EXPECT_EQ(A.StaticSharedBytes, 512);
  EXPECT_EQ(A.ConstantBytes, 368);
  EXPECT_EQ(A.StackFrameBytes, 0);
  const KernelResourceUsage &B = K.at("_Z5heavyPfPKfi");
  EXPECT_EQ(B.Registers, 32);
  EXPECT_EQ(B.StackFrameBytes, 424);
  EXPECT_EQ(B.SpillStoreBytes, 1164);
  EXPECT_EQ(B.SpillLoadBytes, 1224);
  EXPECT_EQ(B.StaticSharedBytes, 0);
}

TEST(PtxasLog, NvrtcFormat) {
  const char *Log =
      "ptxas info    : Compiling entry function '_Z5spillPfPKf' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z5spillPfPKf\n"
      "ptxas         .     256 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 31 registers, used 0 barriers, 256 bytes cumulative stack size\n";
  auto K = parsePtxasLog(Log);
  ASSERT_EQ(K.count("_Z5spillPfPKf"), 1u);
  EXPECT_EQ(K["_Z5spillPfPKf"].Registers, 31);
  EXPECT_EQ(K["_Z5spillPfPKf"].StackFrameBytes, 256);
  EXPECT_EQ(K["_Z5spillPfPKf"].SpillStoreBytes, 8);
  EXPECT_EQ(K["_Z5spillPfPKf"].SpillLoadBytes, 4);
}

TEST(ResourceRoute, Parses) {
  EXPECT_EQ(parseResourceRoute("nvcc"), ResourceRoute::Nvcc);
  EXPECT_EQ(parseResourceRoute("NVRTC"), ResourceRoute::Nvrtc);
  EXPECT_EQ(parseResourceRoute("estimate"), ResourceRoute::Estimate);
  EXPECT_EQ(parseResourceRoute("whatever"), ResourceRoute::Auto);
}
