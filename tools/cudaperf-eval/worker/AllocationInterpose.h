// The worker's view of the memory its candidate holds: every allocation and free a candidate can
// reach through the CUDA runtime or driver is defined by the worker executable itself (exported,
// so the candidate, linked against the same shared libcudart, and any library it loads bind to
// them), recorded in one ledger and forwarded. Allocations the worker makes for itself are made
// inside a WorkerAllocations scope and recorded as the worker's.
#pragma once

#include "cudaperf/Runtime/AllocationLedger.h"

namespace cudaperf::worker {

runtime::AllocationLedger &allocationLedger();

// While one is alive on a thread, what that thread allocates is the worker's own.
class WorkerAllocations {
public:
  WorkerAllocations();
  ~WorkerAllocations();
  WorkerAllocations(const WorkerAllocations &) = delete;
  WorkerAllocations &operator=(const WorkerAllocations &) = delete;
};

// What the candidate holds now on the current device, pools' reserves (the default pool, the
// current pool, the pools it created, the graph memory pool) queried from CUDA.
runtime::MemorySummary candidateMemory();

// Out-of-memory answers the candidate's allocations got since the last call (for telling an
// allocation that failed because other processes filled the GPU).
uint64_t takeCandidateOutOfMemory();

} // namespace cudaperf::worker
