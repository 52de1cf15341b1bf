#include "Interpose.h"
#include "RealSymbols.h"

#include <atomic>
#include <cuda.h>
#include <mutex>

namespace cudaperf::worker {
namespace {

std::atomic<bool> gActive{false};
std::atomic<bool> gRecording{false};
cudaStream_t gStream = nullptr;
std::atomic<int> gKernels{0}, gDefault{0}, gOther{0}, gHostCopies{0};
// Only the thread that launches writes these; candidates that launch from other threads are
// caught by the drain and thread checks instead.
cudaStream_t gStreams[CallActivity::kMaxStreams];
int gStreamCount = 0;

// What identifies a launched kernel; names are looked up after the call.
enum class Via { RuntimeKernel, RuntimeFunction, DriverFunction };
struct PendingLaunch {
  Via via;
  const void *handle;
  LaunchRecord record;
};
std::mutex gRecordMu;
std::vector<PendingLaunch> gPending;
std::vector<LaunchRecord> gRecorded;
bool gTruncated = false;

bool isDefault(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread; }

void record(cudaStream_t s, Via via, const void *handle, dim3 grid, dim3 block, size_t smem) {
  std::lock_guard<std::mutex> lock(gRecordMu);
  if (gPending.size() >= kMaxRecordedLaunches) {
    gTruncated = true;
    return;
  }
  PendingLaunch p{via, handle, {}};
  p.record.grid[0] = grid.x, p.record.grid[1] = grid.y, p.record.grid[2] = grid.z;
  p.record.block[0] = block.x, p.record.block[1] = block.y, p.record.block[2] = block.z;
  p.record.dynamicSmemBytes = smem;
  p.record.stream = s == gStream ? "timed" : isDefault(s) ? "default" : "other";
  gPending.push_back(p);
}

void noteLaunch(cudaStream_t s, Via via, const void *handle, dim3 grid, dim3 block, size_t smem) {
  if (!gActive.load(std::memory_order_relaxed))
    return;
  ++gKernels;
  if (gRecording.load(std::memory_order_relaxed))
    record(s, via, handle, grid, block, smem);
  if (s == gStream)
    return;
  // A launch into a stream being captured is a graph node, not work: it runs when (and where) the
  // graph is launched. (Asked before the default-stream test: capture may be on the default stream
  // in relaxed mode.)
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(s, &capture) == cudaSuccess && capture != cudaStreamCaptureStatusNone)
    return;
  cudaGetLastError();
  if (isDefault(s))
    ++gDefault;
  else {
    ++gOther;
    for (int i = 0; i < gStreamCount; ++i)
      if (gStreams[i] == s)
        return;
    if (gStreamCount < CallActivity::kMaxStreams)
      gStreams[gStreamCount++] = s;
  }
}

std::string kernelName(Via via, const void *handle) {
  const char *name = nullptr;
  static auto kernelGetName = driverFn<CUresult (*)(const char **, CUkernel)>("cuKernelGetName");
  static auto funcGetName = driverFn<CUresult (*)(const char **, CUfunction)>("cuFuncGetName");
  switch (via) {
  case Via::RuntimeKernel:
    if (kernelGetName && kernelGetName(&name, static_cast<CUkernel>(const_cast<void *>(handle))) == CUDA_SUCCESS)
      return name ? name : "<unknown>";
    break;
  case Via::RuntimeFunction:
    if (cudaFuncGetName(&name, handle) == cudaSuccess && name)
      return name;
    cudaGetLastError();
    break;
  case Via::DriverFunction: // a CUfunction, or a CUkernel passed in its place
    if (funcGetName && funcGetName(&name, static_cast<CUfunction>(const_cast<void *>(handle))) == CUDA_SUCCESS && name)
      return name;
    if (kernelGetName && kernelGetName(&name, static_cast<CUkernel>(const_cast<void *>(handle))) == CUDA_SUCCESS && name)
      return name;
    break;
  }
  return "<unknown>";
}

bool isHostPointer(const void *p) {
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return true;
  }
  return attr.type == cudaMemoryTypeHost || attr.type == cudaMemoryTypeUnregistered;
}

void noteCopy(void *dst, const void *src, cudaMemcpyKind kind) {
  if (!gActive.load(std::memory_order_relaxed))
    return;
  bool host = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost ||
              kind == cudaMemcpyHostToHost ||
              (kind == cudaMemcpyDefault && (isHostPointer(dst) || isHostPointer(src)));
  if (host)
    ++gHostCopies;
}

void noteHostCopy() {
  if (gActive.load(std::memory_order_relaxed))
    ++gHostCopies;
}

} // namespace

void forgetStream(cudaStream_t s) {
  if (!gActive.load(std::memory_order_relaxed))
    return;
  for (int i = 0; i < gStreamCount; ++i)
    if (gStreams[i] == s) {
      gStreams[i] = gStreams[--gStreamCount];
      return;
    }
}

void beginCandidateCall(cudaStream_t stream, bool recordLaunches) {
  gStream = stream;
  gKernels = gDefault = gOther = gHostCopies = 0;
  gStreamCount = 0;
  if (recordLaunches) {
    std::lock_guard<std::mutex> lock(gRecordMu);
    gPending.clear();
    gRecorded.clear();
    gTruncated = false;
  }
  gRecording = recordLaunches;
  gActive = true;
}

CallActivity endCandidateCall() {
  gActive = false;
  if (gRecording.exchange(false)) {
    std::lock_guard<std::mutex> lock(gRecordMu);
    for (const PendingLaunch &p : gPending) {
      gRecorded.push_back(p.record);
      gRecorded.back().kernel = kernelName(p.via, p.handle);
    }
    gPending.clear();
  }
  CallActivity a;
  a.kernels = gKernels;
  a.kernelsOnDefaultStream = gDefault;
  a.kernelsOnOtherStreams = gOther;
  a.hostCopies = gHostCopies;
  a.otherStreamCount = gStreamCount;
  for (int i = 0; i < gStreamCount; ++i)
    a.otherStreams[i] = gStreams[i];
  return a;
}

const std::vector<LaunchRecord> &recordedLaunches() { return gRecorded; }
bool recordedLaunchesTruncated() { return gTruncated; }

} // namespace cudaperf::worker

using namespace cudaperf::worker;

// ---- CUDA runtime: launches and copies ------------------------------------------------------

// A stream the candidate destroys during a call is no longer one the audit may query (a freed
// handle: measured on the H100, cudaStreamQuery on it crashed the process).
extern "C" cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  using Fn = cudaError_t (*)(cudaStream_t);
  static Fn f = runtimeFn<Fn>("cudaStreamDestroy");
  forgetStream(stream);
  return f(stream);
}

// nvcc's launch stubs (CUDA 13) call these; the declarations live in a header that only nvcc sees.
extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                          size_t sharedMem, cudaStream_t stream) {
  using Fn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
  static Fn f = runtimeFn<Fn>("__cudaLaunchKernel");
  noteLaunch(stream, Via::RuntimeKernel, kernel, grid, block, sharedMem);
  return f(kernel, grid, block, args, sharedMem, stream);
}

extern "C" cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                               size_t sharedMem, cudaStream_t stream) {
  using Fn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
  static Fn f = runtimeFn<Fn>("__cudaLaunchKernel_ptsz");
  noteLaunch(stream == nullptr ? cudaStreamPerThread : stream, Via::RuntimeKernel, kernel, grid, block, sharedMem);
  return f(kernel, grid, block, args, sharedMem, stream);
}

extern "C" cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                                        size_t sharedMem, cudaStream_t stream) {
  using Fn = cudaError_t (*)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
  static Fn f = runtimeFn<Fn>("cudaLaunchKernel");
  noteLaunch(stream, Via::RuntimeFunction, func, grid, block, sharedMem);
  return f(func, grid, block, args, sharedMem, stream);
}

extern "C" cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
  using Fn = cudaError_t (*)(const cudaLaunchConfig_t *, const void *, void **);
  static Fn f = runtimeFn<Fn>("cudaLaunchKernelExC");
  if (config)
    noteLaunch(config->stream, Via::RuntimeFunction, func, config->gridDim, config->blockDim,
               config->dynamicSmemBytes);
  else
    noteLaunch(nullptr, Via::RuntimeFunction, func, dim3(0, 0, 0), dim3(0, 0, 0), 0);
  return f(config, func, args);
}

extern "C" cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  using Fn = cudaError_t (*)(void *, const void *, size_t, cudaMemcpyKind);
  static Fn f = runtimeFn<Fn>("cudaMemcpy");
  noteCopy(dst, src, kind);
  return f(dst, src, count, kind);
}

extern "C" cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                                       cudaStream_t stream) {
  using Fn = cudaError_t (*)(void *, const void *, size_t, cudaMemcpyKind, cudaStream_t);
  static Fn f = runtimeFn<Fn>("cudaMemcpyAsync");
  noteCopy(dst, src, kind);
  return f(dst, src, count, kind, stream);
}

extern "C" cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                    size_t height, cudaMemcpyKind kind) {
  using Fn = cudaError_t (*)(void *, size_t, const void *, size_t, size_t, size_t, cudaMemcpyKind);
  static Fn f = runtimeFn<Fn>("cudaMemcpy2D");
  noteCopy(dst, src, kind);
  return f(dst, dpitch, src, spitch, width, height, kind);
}

extern "C" cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                         size_t width, size_t height, cudaMemcpyKind kind,
                                         cudaStream_t stream) {
  using Fn = cudaError_t (*)(void *, size_t, const void *, size_t, size_t, size_t, cudaMemcpyKind, cudaStream_t);
  static Fn f = runtimeFn<Fn>("cudaMemcpy2DAsync");
  noteCopy(dst, src, kind);
  return f(dst, dpitch, src, spitch, width, height, kind, stream);
}

// ---- CUDA driver: launches and host copies --------------------------------------------------

extern "C" CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                               unsigned, CUstream, void **, void **);
extern "C" CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *, CUfunction, void **, void **);

namespace {
CUresult driverLaunch(const char *name, CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                      unsigned bz, unsigned smem, CUstream s, void **params, void **extra, bool perThread) {
  using Fn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                          void **, void **);
  Fn f = driverFn<Fn>(name);
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  cudaStream_t rs = reinterpret_cast<cudaStream_t>(s);
  noteLaunch(perThread && !rs ? cudaStreamPerThread : rs, Via::DriverFunction, fn, dim3(gx, gy, gz), dim3(bx, by, bz),
             smem);
  return f(fn, gx, gy, gz, bx, by, bz, smem, s, params, extra);
}
CUresult driverLaunchEx(const char *name, const CUlaunchConfig *c, CUfunction fn, void **params, void **extra,
                        bool perThread) {
  using Fn = CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **);
  Fn f = driverFn<Fn>(name);
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (c) {
    cudaStream_t rs = reinterpret_cast<cudaStream_t>(c->hStream);
    noteLaunch(perThread && !rs ? cudaStreamPerThread : rs, Via::DriverFunction, fn,
               dim3(c->gridDimX, c->gridDimY, c->gridDimZ), dim3(c->blockDimX, c->blockDimY, c->blockDimZ),
               c->sharedMemBytes);
  }
  return f(c, fn, params, extra);
}
} // namespace

extern "C" CUresult CUDAAPI cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                          unsigned by, unsigned bz, unsigned smem, CUstream s, void **params,
                                          void **extra) {
  return driverLaunch("cuLaunchKernel", fn, gx, gy, gz, bx, by, bz, smem, s, params, extra, false);
}
extern "C" CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                               unsigned by, unsigned bz, unsigned smem, CUstream s, void **params,
                                               void **extra) {
  return driverLaunch("cuLaunchKernel_ptsz", fn, gx, gy, gz, bx, by, bz, smem, s, params, extra, true);
}
extern "C" CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction fn, void **params, void **extra) {
  return driverLaunchEx("cuLaunchKernelEx", c, fn, params, extra, false);
}
extern "C" CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction fn, void **params,
                                                 void **extra) {
  return driverLaunchEx("cuLaunchKernelEx_ptsz", c, fn, params, extra, true);
}

extern "C" CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) {
  static auto f = driverFn<CUresult (*)(CUdeviceptr, const void *, size_t)>("cuMemcpyHtoD_v2");
  noteHostCopy();
  return f ? f(dst, src, n) : CUDA_ERROR_NOT_INITIALIZED;
}
extern "C" CUresult CUDAAPI cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) {
  static auto f = driverFn<CUresult (*)(void *, CUdeviceptr, size_t)>("cuMemcpyDtoH_v2");
  noteHostCopy();
  return f ? f(dst, src, n) : CUDA_ERROR_NOT_INITIALIZED;
}
extern "C" CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
  static auto f = driverFn<CUresult (*)(CUdeviceptr, const void *, size_t, CUstream)>("cuMemcpyHtoDAsync_v2");
  noteHostCopy();
  return f ? f(dst, src, n, s) : CUDA_ERROR_NOT_INITIALIZED;
}
extern "C" CUresult CUDAAPI cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  static auto f = driverFn<CUresult (*)(void *, CUdeviceptr, size_t, CUstream)>("cuMemcpyDtoHAsync_v2");
  noteHostCopy();
  return f ? f(dst, src, n, s) : CUDA_ERROR_NOT_INITIALIZED;
}
