// Pure pieces of the work analysis: sector footprints of address ranges, the lattice of sampled
// block indices (the roofline bound: test/support/GpuTableTest.cpp).
#include "cudaperf/Analysis/Footprint.h"
#include "cudaperf/Analysis/ThreadExecution.h"
#include <gtest/gtest.h>

using namespace cudaperf;

TEST(Footprint, RoundsToSectorsAndMergesOverlaps) {
  EXPECT_EQ(footprintBytes({{0, 4}}), 32);
  EXPECT_EQ(footprintBytes({{30, 34}}), 64); // straddles two sectors
  EXPECT_EQ(footprintBytes({{0, 1024}, {512, 2048}}), 2048);
  EXPECT_EQ(footprintBytes({{0, 1024}, {4096, 5120}}), 2048);
  EXPECT_EQ(footprintBytes({{-64, 0}}), 64);
  EXPECT_EQ(footprintBytes({{100, 100}}), 0); // empty
}

TEST(Footprint, DensityOfOverlappingRangesIsTheLargest) {
  EXPECT_EQ(footprintBytes({{0, 4096, 0.25}}), 1024);
  EXPECT_EQ(footprintBytes({{0, 4096, 0.25}, {0, 2048, 1.0}}), 4096);
  EXPECT_EQ(footprintBytes({{0, 4096, 0.25}, {8192, 9216, 1.0}}), 1024 + 1024);
}

TEST(LatticeSamples, WeightsAddUpToTheSize) {
  for (int64_t Size : {1, 3, 5, 6, 64, 1000}) {
    auto S = latticeSamples(Size, 5);
    double Sum = 0;
    for (auto [I, W] : S) {
      EXPECT_GE(I, 0);
      EXPECT_LT(I, Size);
      Sum += W;
    }
    EXPECT_DOUBLE_EQ(Sum, double(Size)) << Size;
    EXPECT_EQ(S.front().first, 0);
    EXPECT_EQ(S.back().first, Size - 1); // the last block (partial tiles, guards) is always sampled
  }
  EXPECT_EQ(latticeSamples(64, 5).size(), 5u);
}

