// The memory accounting of a worker (what a candidate holds, by kind), on sequences of the
// events its interposed allocation functions report: no GPU involved.
#include "cudaperf/Runtime/AllocationLedger.h"

#include <gtest/gtest.h>

using namespace cudaperf::runtime;

namespace {
constexpr uint64_t MiB = 1 << 20;
}

TEST(AllocationLedger, AllocationsAndFreesByOwner) {
  AllocationLedger l;
  l.allocated(0x1000, 100 * MiB, MemoryKind::Device, Owner::Worker);
  l.allocated(0x2000, 3 * MiB, MemoryKind::Device, Owner::Candidate);
  l.allocated(0x3000, 5 * MiB, MemoryKind::Pitched, Owner::Candidate);
  l.allocated(0x4000, 7 * MiB, MemoryKind::Managed, Owner::Candidate);
  l.allocated(0x5000, 11 * MiB, MemoryKind::PinnedHost, Owner::Candidate);
  MemorySummary c = l.summary(Owner::Candidate);
  EXPECT_EQ(c.deviceBytes, 15 * MiB);
  EXPECT_EQ(c.hostBytes, 11 * MiB);
  EXPECT_EQ(c.liveAllocations, 4u);
  EXPECT_EQ(c.bytesByKind[MemoryKind::Managed], 7 * MiB);
  EXPECT_EQ(l.summary(Owner::Worker).deviceBytes, 100 * MiB);
  EXPECT_EQ(*l.ownerOf(0x1000), Owner::Worker);
  EXPECT_FALSE(l.ownerOf(0x9999).has_value());

  EXPECT_TRUE(l.freed(0x2000, Owner::Candidate));
  EXPECT_TRUE(l.freed(0x5000, Owner::Candidate));
  c = l.summary(Owner::Candidate);
  EXPECT_EQ(c.deviceBytes, 12 * MiB);
  EXPECT_EQ(c.hostBytes, 0u);
  EXPECT_EQ(c.allocations, 4u);
  EXPECT_EQ(c.frees, 2u);
}

TEST(AllocationLedger, DoubleAndForeignFreesAreCounted) {
  AllocationLedger l;
  l.allocated(0x10, MiB, MemoryKind::Device, Owner::Candidate);
  EXPECT_TRUE(l.freed(0x10, Owner::Candidate));
  EXPECT_FALSE(l.freed(0x10, Owner::Candidate)); // CUDA accepted it, the ledger did not see it allocated
  l.invalidFree(Owner::Candidate);               // CUDA refused a second free
  l.refusedFree(0x20);                           // the worker refused to forward a free of its own buffer
  MemorySummary c = l.summary(Owner::Candidate);
  EXPECT_EQ(c.untrackedFrees, 1u);
  EXPECT_EQ(c.invalidFrees, 1u);
  EXPECT_EQ(c.refusedFrees, 1u);
  EXPECT_EQ(c.frees, 1u);
  EXPECT_EQ(c.deviceBytes, 0u);
}

TEST(AllocationLedger, PoolsCountTheirReserve) {
  AllocationLedger l;
  const uint64_t defaultPool = 0xD0, own = 0xE0;
  l.allocated(0x100, 2 * MiB, MemoryKind::Async, Owner::Candidate, defaultPool);
  // Live async allocations without a known reserve: their bytes.
  EXPECT_EQ(l.summary(Owner::Candidate).deviceBytes, 2 * MiB);
  // A reserve larger than what is live (memory freed into a pool that keeps it): the reserve.
  EXPECT_EQ(l.summary(Owner::Candidate, {{defaultPool, 32 * MiB}}).deviceBytes, 32 * MiB);
  EXPECT_TRUE(l.freed(0x100, Owner::Candidate));
  EXPECT_EQ(l.summary(Owner::Candidate, {{defaultPool, 32 * MiB}}).deviceBytes, 32 * MiB);
  EXPECT_EQ(l.summary(Owner::Candidate, {{defaultPool, 0}}).deviceBytes, 0u); // trimmed
  l.poolCreated(own, Owner::Candidate);
  l.allocated(0x200, 4 * MiB, MemoryKind::Async, Owner::Candidate, own);
  MemorySummary s = l.summary(Owner::Candidate, {{defaultPool, MiB}, {own, 8 * MiB}}, 3 * MiB);
  EXPECT_EQ(s.deviceBytes, MiB + 8 * MiB + 3 * MiB); // graph pool's reserve as extra
  EXPECT_EQ(s.pools, 1u);
  EXPECT_EQ(l.pools(Owner::Candidate), std::vector<uint64_t>{own});
  EXPECT_EQ(l.summary(Owner::Worker, {{defaultPool, MiB}, {own, 8 * MiB}}).deviceBytes, 0u);
  l.poolDestroyed(own);
  EXPECT_TRUE(l.pools(Owner::Candidate).empty());
}

TEST(AllocationLedger, PhysicalMemoryLivesUntilReleasedAndUnmapped) {
  AllocationLedger l;
  l.physicalCreated(0xA, 64 * MiB, Owner::Candidate);
  l.mapped(0x7000000, 64 * MiB, 0xA);
  l.mapped(0x17000000, 64 * MiB, 0xA); // mapped twice
  l.physicalReleased(0xA);
  EXPECT_EQ(l.summary(Owner::Candidate).deviceBytes, 64 * MiB); // still mapped
  l.unmapped(0x7000000, 64 * MiB);
  EXPECT_EQ(l.summary(Owner::Candidate).deviceBytes, 64 * MiB);
  l.unmapped(0x17000000, 64 * MiB);
  EXPECT_EQ(l.summary(Owner::Candidate).deviceBytes, 0u);

  l.physicalCreated(0xB, 2 * MiB, Owner::Candidate); // created, never mapped nor released: a leak
  EXPECT_EQ(l.summary(Owner::Candidate).bytesByKind[MemoryKind::Physical], 2 * MiB);
  l.physicalReleased(0xB);
  EXPECT_EQ(l.summary(Owner::Candidate).deviceBytes, 0u);
}

TEST(AllocationLedger, FailedAllocationsAreKept) {
  AllocationLedger l;
  l.failedAllocation(200ull << 30, Owner::Candidate);
  l.failedAllocation(1 << 30, Owner::Candidate);
  MemorySummary s = l.summary(Owner::Candidate);
  EXPECT_EQ(s.failedAllocations, 2u);
  EXPECT_EQ(s.failedBytes, (201ull << 30));
  EXPECT_EQ(s.deviceBytes, 0u);
}
