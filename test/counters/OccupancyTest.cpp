#include "cudaperf/Counters/Occupancy.h"

#include <gtest/gtest.h>

using namespace cudaperf::counters;

// sm_90: 2048 threads (64 warps) per SM, warp size 32.
TEST(Occupancy, FullSmIsOneHundredPercent) {
  EXPECT_DOUBLE_EQ(theoreticalOccupancyPct(8, 256, 32, 2048), 100.0); // 8 blocks x 8 warps = 64 warps
  EXPECT_DOUBLE_EQ(theoreticalOccupancyPct(2, 1024, 32, 2048), 100.0);
}

TEST(Occupancy, LimitedBlocksGiveTheirShare) {
  EXPECT_DOUBLE_EQ(theoreticalOccupancyPct(3, 256, 32, 2048), 37.5);  // 24 of 64 warps (e.g. shared memory bound)
  EXPECT_DOUBLE_EQ(theoreticalOccupancyPct(32, 32, 32, 2048), 50.0);  // block limit 32 with one-warp blocks
  EXPECT_DOUBLE_EQ(theoreticalOccupancyPct(1, 128, 32, 1536), 8.0 + 1.0 / 3.0); // sm_86: 48 warps
}

TEST(Occupancy, PartialWarpsCountWhole) {
  EXPECT_DOUBLE_EQ(theoreticalOccupancyPct(1, 48, 32, 2048), 2.0 / 64.0 * 100.0);
  EXPECT_DOUBLE_EQ(theoreticalOccupancyPct(1, 1, 32, 2048), 1.0 / 64.0 * 100.0);
}

TEST(Occupancy, NoBlockFitsIsZeroAndBadInputsAreNegative) {
  EXPECT_DOUBLE_EQ(theoreticalOccupancyPct(0, 1024, 32, 2048), 0.0);
  EXPECT_LT(theoreticalOccupancyPct(-1, 256, 32, 2048), 0.0);
  EXPECT_LT(theoreticalOccupancyPct(4, 0, 32, 2048), 0.0);
  EXPECT_LT(theoreticalOccupancyPct(4, 256, 0, 2048), 0.0);
  EXPECT_LT(theoreticalOccupancyPct(4, 256, 32, 0), 0.0);
}
