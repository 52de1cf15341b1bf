// Timing of an entry point with CUDA events, and the audit call that checks the timed stream
// saw all of the call's work.
#pragma once

#include "Interpose.h"
#include "cudaperf/Runtime/TimingStats.h"

#include <chrono>
#include <cuda_runtime_api.h>
#include <string>
#include <vector>

namespace cudaperf::worker {

using runtime::TimingStats;

using EntryFn = void (*)(void *const *args, cudaStream_t stream);

// Host seconds between successive lap() calls (the first from construction).
class Stopwatch {
public:
  double lap() {
    auto now = std::chrono::steady_clock::now();
    double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Runs the entry with interposition counting on (and its launches recorded when asked); the
// activity is returned.
CallActivity callEntry(EntryFn fn, void *const *args, cudaStream_t stream, bool recordLaunches = false);

// Evicts the previous run's data from L2 by writing a buffer twice its size.
class L2Flusher {
public:
  ~L2Flusher();
  // The worker's own memory, waiting up to memoryWaitSeconds while the device is full.
  cudaError_t allocate(size_t l2Bytes, double memoryWaitSeconds = 30);
  cudaError_t flush(cudaStream_t stream);
  // One one-thread kernel on `stream`, waited for: this process's context is the one on the device
  // before a timed interval starts (diagnostics of issue 33's cross-process slowdown).
  cudaError_t settle(cudaStream_t stream);
  // flush(), then read twice L2's size of a second buffer back to the host, so that no dirty line
  // of the flush is left to be written back during the next kernel (a cold and clean L2, as ncu's
  // --cache-control all). Its buffers are allocated by prepareClean(), or at the first call.
  cudaError_t prepareClean();
  cudaError_t clean(cudaStream_t stream);
  size_t bytes() const { return bytes_; }

private:
  void *buffer_ = nullptr;
  size_t bytes_ = 0;
  unsigned char value_ = 0;
  void *readBack_ = nullptr, *readBackHost_ = nullptr;
};

struct TimingOptions {
  int warmup = 3;
  int minRuns = 20;
  int maxRuns = 1000;
  double budgetMs = 100; // wall time for runs beyond minRuns
};


// One timed call as every timed call is made since the trust split (docs/eval-result.md,
// "Timing"): L2 written over on the stream (a cold L2, and work queued ahead so the events see
// the call's kernels back to back, not the host's launch latency), an event, the call, an event,
// waited for. `ms` is the events' span.
// hostMs, where given: this process's clock from the start event's record to the stop event's
// (how long the entry took to return: a launch that blocks or is slow to issue shows here).
// settle: flusher.settle() first.
cudaError_t timedCall(EntryFn fn, void *const *args, cudaStream_t stream, L2Flusher &flusher, double &ms,
                      double *hostMs = nullptr, bool settle = false);
// CUDAPERF_TIMED_SETTLE=1 in the worker's environment: every timed call settles first (an experiment's
// switch; off by default).
bool settleTimedCalls();

struct AuditResult {
  double streamSpanMs = 0; // events on the timed stream around the call
  double hostReturnMs = 0; // how long the call took to return on the host
  double drainMs = 0;      // device-wide synchronize after the timed stream was done
  int pendingStreams = 0;  // other streams still busy when the timed stream was done
  int threadsLeft = 0;     // host threads created by the call and still alive
  int attempts = 1;        // calls made (more than one when a drain had to be confirmed)
  CallActivity activity;
  std::string violation;   // "" when the timed stream saw all the work
};

// One call with its launches recorded (recordedLaunches()). A violation that rests on time alone
// (the drain) is confirmed on up to two more calls, the least drain counting: a host thread
// descheduled on a busy machine must not look like hidden work.
cudaError_t auditCall(EntryFn fn, void *const *args, cudaStream_t stream, AuditResult &audit);

int countThreads();

} // namespace cudaperf::worker
