// Which of the processes NVML saw on the GPU during a run were someone else's (no NVML needed).
#include "cudaperf/Runtime/GpuMonitor.h"

#include <gtest/gtest.h>

using namespace cudaperf::runtime;

namespace {
GpuSample sample(std::vector<GpuProcessSample> p, int util = 50) {
  GpuSample s;
  s.processes = std::move(p);
  s.utilizationGpu = util;
  return s;
}
} // namespace

TEST(GpuMonitor, OnlyOurProcessesIsNotShared) {
  GpuSharing s = summarizeSharing({sample({{100, 1 << 20}, {101, 2 << 20}}), sample({{100, 1 << 20}}, 70)},
                                  {100, 101, 102}, 3);
  EXPECT_TRUE(s.pidsMatched);
  EXPECT_FALSE(s.shared);
  EXPECT_TRUE(s.others.empty());
  EXPECT_EQ(s.samples, 2);
  EXPECT_EQ(s.utilizationMax, 70);
  EXPECT_DOUBLE_EQ(s.utilizationMean, 60);
}

TEST(GpuMonitor, AnotherProcessIsReportedWithItsLargestFootprint) {
  GpuSharing s = summarizeSharing(
      {sample({{100, 1}, {555, 8ull << 30}}), sample({{100, 1}}), sample({{100, 1}, {555, 9ull << 30}})}, {100}, 1);
  ASSERT_TRUE(s.shared);
  ASSERT_EQ(s.others.size(), 1u);
  EXPECT_EQ(s.others[0].pid, 555u);
  EXPECT_EQ(s.others[0].maxBytes, 9ull << 30);
  EXPECT_EQ(s.others[0].samples, 2);
  EXPECT_EQ(s.maxProcesses, 2);
}

TEST(GpuMonitor, ForeignPidNamespaceFallsBackToCounts) {
  // None of our PIDs appears although our worker ran: NVML reports another namespace's PIDs.
  GpuSharing alone = summarizeSharing({sample({{9001, 1}, {9002, 1}})}, {100, 101}, 2);
  EXPECT_FALSE(alone.pidsMatched);
  EXPECT_FALSE(alone.shared);
  GpuSharing crowded = summarizeSharing({sample({{9001, 1}, {9002, 1}, {9003, 1}})}, {100, 101}, 2);
  EXPECT_TRUE(crowded.shared);
  EXPECT_TRUE(crowded.others.empty()); // cannot say which
}

TEST(GpuMonitor, NoSamples) {
  GpuSharing s = summarizeSharing({}, {1}, 1);
  EXPECT_FALSE(s.shared);
  EXPECT_EQ(s.samples, 0);
  EXPECT_EQ(s.utilizationMax, -1);
}
