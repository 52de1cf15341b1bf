// The hardware-counter pass over a candidate that was found correct and timed (docs/counters.md):
// per configuration, one call profiled with the CUPTI range profiler, every kernel it launches
// counted. A separate pass because replay changes timing. --counters-mode shared: one profiler set-up serves
// every configuration (runtime::CountersMode; the passes and the documents stay one per configuration);
// joint: one session whose passes run every configuration in turn, split back into one document per
// configuration (shared where the split cannot be trusted).
#pragma once

#include "Measure.h"
#include "SharedData.h"

#include "cudaperf/Runtime/CountersMode.h"
#include "cudaperf/Runtime/Task.h"

#include <string>

namespace cudaperf::worker {

struct CounterPass {
  const runtime::Task &task;
  const SharedData &shared;
  cudaStream_t stream;
  L2Flusher &flusher;
  double memoryWaitSeconds;
  runtime::CountersMode mode = runtime::CountersMode::Shared;
  size_t rangesPerSession = runtime::kCounterRangesFallback; // per configuration (runtime::counterRanges)
};

// One "counters" event per configuration (until one is unavailable: the reason would repeat).
void collectCounters(const CounterPass &pass, const std::string &impl, EntryFn fn);

} // namespace cudaperf::worker
