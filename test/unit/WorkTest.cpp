// Pure pieces of the work analysis: sector footprints of address ranges, the lattice of sampled
// block indices, and the roofline bound from the device table.
#include "cudaperf/Analysis/Footprint.h"
#include "cudaperf/Analysis/Roofline.h"
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

TEST(Roofline, DeviceTableHasSourcesAndDefaults) {
  ASSERT_FALSE(allRooflineDevices().empty());
  EXPECT_STREQ(allRooflineDevices().front().Name, "H200");
  for (const RooflineDevice &D : allRooflineDevices()) {
    EXPECT_GT(std::string(D.Source).size(), 20u) << D.Name;
    EXPECT_GT(D.DramBytesPerSecond, 0) << D.Name;
    EXPECT_GT(D.Peak[2], 0) << D.Name;
  }
  EXPECT_STREQ(rooflineDeviceForArch(9, 0)->Name, "H200");
  EXPECT_STREQ(rooflineDeviceForArch(8, 0)->Name, "A100");
  EXPECT_STREQ(rooflineDeviceForArch(8, 9)->Name, "L40S");
  EXPECT_EQ(rooflineDeviceForArch(7, 0), nullptr);
  EXPECT_STREQ(findRooflineDevice("h100 sxm")->Name, "H100-SXM");
}

TEST(Roofline, BoundIsTheLargerTime) {
  const RooflineDevice &H200 = *findRooflineDevice("H200");
  RooflineInput Copy; // 16 MB in, 16 MB out, 4M FLOP
  Copy.Flops[2] = 4e6;
  Copy.DramBytes = 32e6;
  RooflineResult R = rooflineTime(H200, Copy);
  EXPECT_STREQ(R.bound(), "memory");
  EXPECT_NEAR(R.seconds(), 32e6 / 4.3e12, 1e-12); // the measured copy bandwidth
  RooflineInput Gemm; // 2 GFLOP fp32 over 12 MB
  Gemm.Flops[2] = 2.147e9;
  Gemm.DramBytes = 12.6e6;
  R = rooflineTime(H200, Gemm);
  EXPECT_STREQ(R.bound(), "compute");
  EXPECT_NEAR(R.seconds(), 2.147e9 / 67e12, 1e-12);
  RooflineInput Fp64 = Gemm; // fp64 runs at half the fp32 rate
  Fp64.Flops = {0, 0, 0, 2.147e9};
  EXPECT_NEAR(rooflineTime(H200, Fp64).seconds(), 2.147e9 / 34e12, 1e-12);
}
