// The rounding of IPC-mapped allocations (cudaperf/Runtime/IpcAllocation.h).
#include "cudaperf/Runtime/IpcAllocation.h"

#include <gtest/gtest.h>

using cudaperf::runtime::ipcAllocationBytes;

TEST(IpcAllocation, SmallAllocationsStayAsTheyAre) {
  EXPECT_EQ(ipcAllocationBytes(0), 0u);
  EXPECT_EQ(ipcAllocationBytes(4096 + 8192), 4096u + 8192u);
  EXPECT_EQ(ipcAllocationBytes((size_t(2) << 20) - 1), (size_t(2) << 20) - 1);
}

TEST(IpcAllocation, LargeAllocationsAreWholeTwoMiBPages) {
  constexpr size_t page = size_t(2) << 20;
  EXPECT_EQ(ipcAllocationBytes(page), page);
  EXPECT_EQ(ipcAllocationBytes(page + 1), 2 * page);
  // KernelBench ReLU's buffer (4096 x 393216 fp32) with the worker's two 4 KiB guards.
  size_t relu = size_t(4096) * 393216 * 4;
  EXPECT_EQ(ipcAllocationBytes(relu), relu);
  EXPECT_EQ(ipcAllocationBytes(relu + 8192), relu + page);
  for (size_t n : {page * 3 + 17, size_t(1) << 33, (size_t(1) << 33) + 8192})
    EXPECT_EQ(ipcAllocationBytes(n) % page, 0u) << n;
}
