#include "Measure.h"
#include "AllocationInterpose.h"
#include "DeviceInfo.h"

#include "cudaperf/DeviceKernels/DeviceKernels.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <dirent.h>

namespace cudaperf::worker {

namespace {
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
using runtime::percentile;
} // namespace

CallActivity callEntry(EntryFn fn, void *const *args, cudaStream_t stream, bool recordLaunches) {
  beginCandidateCall(stream, recordLaunches);
  fn(args, stream);
  return endCandidateCall();
}

L2Flusher::~L2Flusher() {
  WorkerAllocations own;
  if (buffer_)
    cudaFree(buffer_);
  if (readBack_)
    cudaFree(readBack_);
  if (readBackHost_)
    cudaFreeHost(readBackHost_);
}

cudaError_t L2Flusher::allocate(size_t l2Bytes, double memoryWaitSeconds) {
  WorkerAllocations own;
  bytes_ = std::max<size_t>(2 * l2Bytes, size_t(64) << 20);
  return mallocWaiting(&buffer_, bytes_, memoryWaitSeconds);
}

cudaError_t L2Flusher::flush(cudaStream_t stream) {
  // A different value each time, so no layer can elide the write as redundant.
  return cudaMemsetAsync(buffer_, ++value_, bytes_, stream);
}

cudaError_t L2Flusher::settle(cudaStream_t stream) {
  namespace dk = cudaperf::devicekernels;
  if (cudaError_t e = dk::fillElements(buffer_, 1, dk::FillSpec{}, stream))
    return e;
  return cudaStreamSynchronize(stream);
}

bool settleTimedCalls() {
  static const bool on = [] {
    const char *v = getenv("CUDAPERF_TIMED_SETTLE");
    return v && std::string(v) == "1";
  }();
  return on;
}

cudaError_t L2Flusher::prepareClean() {
  WorkerAllocations own;
  cudaError_t e = cudaSuccess;
  if (!readBack_ && ((e = cudaMalloc(&readBack_, bytes_)) || (e = cudaMemset(readBack_, 0, bytes_))))
    return e;
  if (!readBackHost_)
    e = cudaMallocHost(&readBackHost_, bytes_);
  return e;
}

cudaError_t L2Flusher::clean(cudaStream_t stream) {
  cudaError_t e = prepareClean();
  if (e || (e = flush(stream)))
    return e;
  return cudaMemcpyAsync(readBackHost_, readBack_, bytes_, cudaMemcpyDeviceToHost, stream);
}

int countThreads() {
  int n = 0;
  if (DIR *d = opendir("/proc/self/task")) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.')
        ++n;
    closedir(d);
  }
  return n;
}

cudaError_t timedCall(EntryFn fn, void *const *args, cudaStream_t stream, L2Flusher &flusher, double &ms,
                      double *hostMs, bool settle) {
  // Created once per thread: the events are the worker's (or the runner's) own.
  static thread_local cudaEvent_t start = nullptr, stop = nullptr;
  if (!start && (cudaEventCreate(&start) || cudaEventCreate(&stop)))
    return cudaGetLastError();
  ms = 0;
  if (settle)
    if (cudaError_t e = flusher.settle(stream))
      return e;
  if (cudaError_t e = flusher.flush(stream))
    return e;
  auto t0 = Clock::now();
  cudaEventRecord(start, stream);
  callEntry(fn, args, stream);
  cudaEventRecord(stop, stream);
  if (hostMs)
    *hostMs = msSince(t0);
  if (cudaError_t e = cudaEventSynchronize(stop))
    return e;
  if (cudaError_t e = cudaGetLastError())
    return e;
  float span = 0;
  cudaEventElapsedTime(&span, start, stop);
  ms = span;
  return cudaSuccess;
}

namespace {

cudaError_t auditOnce(EntryFn fn, void *const *args, cudaStream_t stream, bool record, AuditResult &audit) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  if (cudaError_t e = cudaDeviceSynchronize())
    return e;
  int threadsBefore = countThreads();
  auto t0 = Clock::now();
  cudaEventRecord(start, stream);
  audit.activity = callEntry(fn, args, stream, record);
  cudaEventRecord(stop, stream);
  audit.hostReturnMs = msSince(t0);
  cudaError_t err = cudaEventSynchronize(stop);
  // Work still queued elsewhere once the timed stream is done was not timed.
  audit.pendingStreams = 0;
  for (int i = 0; i < audit.activity.otherStreamCount; ++i) {
    cudaError_t q = cudaStreamQuery(audit.activity.otherStreams[i]);
    if (q == cudaErrorNotReady)
      ++audit.pendingStreams;
    else if (q != cudaSuccess)
      cudaGetLastError(); // a stream the candidate destroyed: the drain check still applies
  }
  auto t1 = Clock::now();
  cudaError_t syncErr = cudaDeviceSynchronize();
  audit.drainMs = msSince(t1);
  if (!err)
    err = syncErr;
  if (!err)
    err = cudaGetLastError();
  float span = 0;
  if (!err)
    cudaEventElapsedTime(&span, start, stop);
  audit.streamSpanMs = span;
  audit.threadsLeft = std::max(0, countThreads() - threadsBefore);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return err;
}

bool drainTooLong(const AuditResult &a) { return a.drainMs > std::max(0.05, 0.1 * a.streamSpanMs); }

} // namespace

cudaError_t auditCall(EntryFn fn, void *const *args, cudaStream_t stream, AuditResult &audit) {
  if (cudaError_t e = auditOnce(fn, args, stream, true, audit))
    return e;
  const CallActivity &a = audit.activity;
  bool countable = a.hostCopies > 0 || a.kernelsOnDefaultStream > 0 || audit.pendingStreams > 0;
  // A long drain alone may be the machine's doing: it must happen again.
  for (int extra = 0; !countable && drainTooLong(audit) && extra < 2; ++extra) {
    AuditResult again;
    if (cudaError_t e = auditOnce(fn, args, stream, false, again))
      return e;
    ++audit.attempts;
    if (again.drainMs < audit.drainMs) {
      audit.drainMs = again.drainMs;
      audit.streamSpanMs = again.streamSpanMs;
      audit.hostReturnMs = again.hostReturnMs;
    }
    audit.threadsLeft += again.threadsLeft;
  }

  auto fmt = [](double v) { char b[32]; snprintf(b, sizeof b, "%.3f", v); return std::string(b); };
  if (a.hostCopies > 0)
    audit.violation = std::to_string(a.hostCopies) +
                      " host<->device copies inside the entry point: the work must be done by kernels on the stream argument";
  else if (a.kernelsOnDefaultStream > 0)
    audit.violation = std::to_string(a.kernelsOnDefaultStream) +
                      " kernels launched on the default stream instead of the stream argument: they are not timed";
  else if (audit.pendingStreams > 0)
    audit.violation = "work on " + std::to_string(audit.pendingStreams) +
                      " other streams was still running when the stream argument finished (returned early)";
  else if (drainTooLong(audit))
    audit.violation = "the device kept working " + fmt(audit.drainMs) + " ms after the stream argument finished (" +
                      fmt(audit.streamSpanMs) + " ms): work hidden from the timed stream";
  else if (audit.threadsLeft > 0)
    audit.violation = std::to_string(audit.threadsLeft) + " host threads started by the entry point were still running";
  return cudaSuccess;
}

} // namespace cudaperf::worker
