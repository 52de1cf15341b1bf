// The GPU table (lib/Support/GpuTable.cpp): arch names, sourced rows, the measured H200 numbers,
// device defaults and the roofline bound.
#include "cudaperf/Support/GpuTable.h"

#include <gtest/gtest.h>

using namespace cudaperf::support;

TEST(Arch, ParsesTheSpellingsToolsUse) {
  EXPECT_EQ(parseArch("sm_90")->number(), 90);
  EXPECT_EQ(parseArch("sm_90a")->suffix, "a");
  EXPECT_EQ(parseArch("sm_90a")->smName(), "sm_90a");
  EXPECT_EQ(parseArch("compute_80")->major, 8);
  EXPECT_EQ(parseArch("8.6")->minor, 6);
  EXPECT_EQ(parseArch("sm_100f")->major, 10);
  EXPECT_EQ(parseArch("120")->major, 12);
  EXPECT_FALSE(parseArch("sm_9x"));
  EXPECT_FALSE(parseArch("sm_9"));
  EXPECT_FALSE(parseArch("sm_1000"));
  EXPECT_FALSE(parseArch("9."));
  EXPECT_FALSE(parseArch(""));
}

TEST(Arch, TargetsAreStrict) {
  EXPECT_TRUE(parseSmTarget("sm_90"));
  EXPECT_TRUE(parseSmTarget("sm_90a"));
  EXPECT_TRUE(parseSmTarget("sm_120"));
  EXPECT_FALSE(parseSmTarget("90"));
  EXPECT_FALSE(parseSmTarget("compute_90"));
  EXPECT_FALSE(parseSmTarget("sm_20")); // older than anything clang 19 targets
  EXPECT_FALSE(parseSmTarget("sm_100f"));
  EXPECT_FALSE(parseSmTarget("sm_9.0"));
}

TEST(GpuTable, FindsArchsByAnySpelling) {
  EXPECT_EQ(findGpuArch("sm_90"), findGpuArch(9, 0));
  EXPECT_EQ(findGpuArch("sm_90a"), findGpuArch(9, 0));
  EXPECT_EQ(findGpuArch("compute_80"), findGpuArch(8, 0));
  EXPECT_EQ(findGpuArch("8.6"), findGpuArch(8, 6));
  EXPECT_EQ(findGpuArch("sm_100a"), findGpuArch(10, 0));
  EXPECT_EQ(findGpuArch("120"), findGpuArch(12, 0));
  EXPECT_EQ(findGpuArch("sm_52"), nullptr);
  EXPECT_EQ(findGpuArch("sm_9x"), nullptr);
  EXPECT_EQ(findGpuArch(""), nullptr);
}

TEST(GpuTable, EveryIssueCapabilityHasASourcedRow) {
  for (auto [major, minor] : {std::pair{7, 0}, {7, 5}, {8, 0}, {8, 6}, {8, 7}, {8, 9}, {9, 0},
                              {10, 0}, {12, 0}}) {
    const GpuArch *a = findGpuArch(major, minor);
    ASSERT_NE(a, nullptr) << major << "." << minor;
    EXPECT_GT(std::string(a->source).size(), 20u);
    EXPECT_FALSE(a->carveoutStepsKiB.empty());
    EXPECT_EQ(a->carveoutStepsKiB.back() * 1024, a->sharedMemPerSM) << a->smName();
    EXPECT_LE(a->sharedMemPerBlockOptin, a->sharedMemPerSM);
  }
}

TEST(GpuTable, H200MatchesMeasuredProperties) {
  const GpuArch &a = *findGpuArch("sm_90");
  EXPECT_EQ(a.registersPerSM, 65536);
  EXPECT_EQ(a.sharedMemPerSM, 233472);
  EXPECT_EQ(a.sharedMemPerBlockOptin, 232448);
  EXPECT_EQ(a.maxThreadsPerSM, 2048);
  EXPECT_EQ(a.maxBlocksPerSM, 32);
  EXPECT_EQ(a.reservedSharedMemPerBlock, 1024);
  const GpuDevice *d = findGpuDevice("h200");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->sms, 132);
  EXPECT_EQ(defaultGpuDevice(9, 0), d);
  EXPECT_EQ(findGpuDevice("H100 SXM")->sms, 132);
  EXPECT_EQ(findGpuDevice("a100")->sms, 108);
  EXPECT_EQ(findGpuDevice("no-such-gpu"), nullptr);
}

TEST(GpuTable, RooflineRowsHaveSourcesAndDefaults) {
  int withPeaks = 0;
  for (const GpuDevice &d : gpuDevices()) {
    EXPECT_GT(std::string(d.smsSource).size(), 20u) << d.name;
    if (!d.roofline)
      continue;
    ++withPeaks;
    EXPECT_GT(std::string(d.roofline->source).size(), 20u) << d.name;
    EXPECT_GT(d.roofline->dramBytesPerSecond, 0) << d.name;
    EXPECT_GT(d.roofline->peak[2], 0) << d.name;
  }
  EXPECT_EQ(withPeaks, 7);
  EXPECT_STREQ(gpuDevices().front().name, "H200");
  EXPECT_STREQ(defaultRooflineDevice(9, 0)->name, "H200");
  EXPECT_STREQ(defaultRooflineDevice(8, 0)->name, "A100");
  EXPECT_STREQ(defaultRooflineDevice(8, 9)->name, "L40S"); // the first 8.9 device with peaks
  EXPECT_STREQ(defaultGpuDevice(8, 9)->name, "L4");        // the first 8.9 device
  EXPECT_EQ(defaultRooflineDevice(7, 0), nullptr);
}

TEST(GpuTable, RooflineBoundIsTheLargerTime) {
  const RooflinePeaks &h200 = *findGpuDevice("H200")->roofline;
  RooflineInput copy; // 16 MB in, 16 MB out, 4M FLOP
  copy.flops[2] = 4e6;
  copy.dramBytes = 32e6;
  RooflineResult r = rooflineTime(h200, copy);
  EXPECT_STREQ(r.bound(), "memory");
  EXPECT_NEAR(r.seconds(), 32e6 / 4.3e12, 1e-12); // the measured copy bandwidth
  RooflineInput gemm; // 2 GFLOP fp32 over 12 MB
  gemm.flops[2] = 2.147e9;
  gemm.dramBytes = 12.6e6;
  r = rooflineTime(h200, gemm);
  EXPECT_STREQ(r.bound(), "compute");
  EXPECT_NEAR(r.seconds(), 2.147e9 / 67e12, 1e-12);
  RooflineInput fp64 = gemm; // fp64 runs at half the fp32 rate
  fp64.flops = {0, 0, 0, 2.147e9};
  EXPECT_NEAR(rooflineTime(h200, fp64).seconds(), 2.147e9 / 34e12, 1e-12);
  RooflineInput tf32; // L40S has no fp64 tensor unit: fp64 tensor FLOPs run at its fp64 rate
  tf32.tensorFlops[3] = 1.43e12;
  EXPECT_NEAR(rooflineTime(*findGpuDevice("L40S")->roofline, tf32).computeSeconds, 1.0, 1e-9);
}
