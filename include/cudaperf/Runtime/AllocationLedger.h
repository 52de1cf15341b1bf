// Per-process accounting of the memory a worker's candidate holds. The worker interposes every
// allocation and free a candidate can reach (runtime and driver API, async and pool allocations,
// managed and pinned host memory, arrays, virtual-memory handles; tools/cudaperf-eval/worker/
// AllocationInterpose.cpp) and reports each to a ledger, so leaks and "allocating all device
// memory" are judged from what this process did, never from device-wide free memory, which every
// other process on the GPU changes. Pure bookkeeping (no CUDA): unit-tested on the CPU.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::runtime {

enum class MemoryKind {
  Device,         // cudaMalloc, cuMemAlloc
  Pitched,        // cudaMallocPitch, cudaMalloc3D, cuMemAllocPitch
  Array,          // CUDA arrays and mipmapped arrays (size estimated from extent and format)
  Managed,        // cudaMallocManaged, cuMemAllocManaged
  Async,          // cudaMallocAsync / FromPoolAsync, cuMemAllocAsync (inside a pool's reserve)
  Physical,       // cuMemCreate: held until released and unmapped
  PinnedHost,     // cudaMallocHost, cudaHostAlloc, cuMemAllocHost, cuMemHostAlloc
  RegisteredHost, // cudaHostRegister, cuMemHostRegister
};
const char *memoryKindName(MemoryKind k);
bool isHostMemory(MemoryKind k);

enum class Owner { Worker, Candidate };

struct MemorySummary {
  uint64_t deviceBytes = 0; // held on the device, pools' reserves included
  uint64_t hostBytes = 0;   // pinned or registered host memory
  std::map<MemoryKind, uint64_t> bytesByKind;
  uint64_t liveAllocations = 0;
  uint64_t allocations = 0, frees = 0;
  uint64_t failedAllocations = 0, failedBytes = 0; // out-of-memory and other refusals
  uint64_t invalidFrees = 0;   // frees CUDA refused (double frees, foreign pointers)
  uint64_t untrackedFrees = 0; // frees of memory the ledger never saw allocated
  uint64_t refusedFrees = 0;   // candidate frees of the worker's own buffers (not forwarded)
  uint64_t poolReservedBytes = 0;
  uint64_t pools = 0;
};

class AllocationLedger {
public:
  // A successful allocation. `pool` names the memory pool of an Async allocation.
  void allocated(uint64_t handle, uint64_t bytes, MemoryKind kind, Owner owner, uint64_t pool = 0);
  // The owner of a live allocation (before a free is forwarded), if the ledger knows it.
  std::optional<Owner> ownerOf(uint64_t handle) const;
  // After CUDA accepted a free; false if the handle was not live here.
  bool freed(uint64_t handle, Owner by);
  void failedAllocation(uint64_t bytes, Owner owner);
  void invalidFree(Owner by);
  void refusedFree(uint64_t handle);

  // Virtual memory management: physical memory lives until released *and* unmapped everywhere.
  void physicalCreated(uint64_t handle, uint64_t bytes, Owner owner);
  bool physicalReleased(uint64_t handle); // false: not a physical handle of this ledger
  void mapped(uint64_t address, uint64_t size, uint64_t handle);
  void unmapped(uint64_t address, uint64_t size);

  void poolCreated(uint64_t pool, Owner owner);
  void poolDestroyed(uint64_t pool);
  // Pools whose reserve counts for `owner` (those it created; pools nobody created here, such as
  // a device's default pool, count for the candidate: the worker allocates nothing from pools).
  std::vector<uint64_t> pools(Owner owner) const;

  // What `owner` holds now. reservedByPool: each pool's reserved bytes, queried by the caller
  // (cudaMemPoolAttrReservedMemCurrent); a pool counts with the larger of its reserve and its live
  // async allocations. extraDeviceBytes: other reserves (the graph memory pool's) for the candidate.
  MemorySummary summary(Owner owner, const std::map<uint64_t, uint64_t> &reservedByPool = {},
                        uint64_t extraDeviceBytes = 0) const;

private:
  struct Allocation {
    uint64_t bytes;
    MemoryKind kind;
    Owner owner;
    uint64_t pool;
  };
  struct Physical {
    uint64_t bytes;
    Owner owner;
    int mappings = 0;
    bool released = false;
  };
  struct Counts {
    uint64_t allocations = 0, frees = 0, failed = 0, failedBytes = 0, invalidFrees = 0, untrackedFrees = 0,
             refusedFrees = 0;
  };
  mutable std::mutex mu_;
  std::map<uint64_t, Allocation> live_;
  std::map<uint64_t, Physical> physical_;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> mappings_; // address -> (size, handle)
  std::map<uint64_t, Owner> pools_;
  Counts counts_[2];
  Counts &countsOf(Owner o) { return counts_[o == Owner::Worker ? 0 : 1]; }
  const Counts &countsOf(Owner o) const { return counts_[o == Owner::Worker ? 0 : 1]; }
};

} // namespace cudaperf::runtime
