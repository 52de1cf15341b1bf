#include "Interpose.h"

#include <atomic>
#include <dlfcn.h>

namespace cudaperf::worker {
namespace {

std::atomic<bool> gActive{false};
cudaStream_t gStream = nullptr;
std::atomic<int> gKernels{0}, gDefault{0}, gOther{0}, gHostCopies{0};
// Only the thread that launches writes these; candidates that launch from other threads are
// caught by the drain and thread checks instead.
cudaStream_t gStreams[CallActivity::kMaxStreams];
int gStreamCount = 0;

template <typename Fn> Fn real(const char *name) {
  Fn f = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  return f;
}

void noteLaunch(cudaStream_t s) {
  if (!gActive.load(std::memory_order_relaxed))
    return;
  ++gKernels;
  if (s == gStream)
    return;
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread)
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

} // namespace

void beginCandidateCall(cudaStream_t stream) {
  gStream = stream;
  gKernels = gDefault = gOther = gHostCopies = 0;
  gStreamCount = 0;
  gActive = true;
}

CallActivity endCandidateCall() {
  gActive = false;
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

} // namespace cudaperf::worker

using cudaperf::worker::noteCopy;
using cudaperf::worker::noteLaunch;
using cudaperf::worker::real;

// nvcc's launch stubs (CUDA 13) call these; the declarations live in a header that only nvcc sees.
extern "C" cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                          size_t sharedMem, cudaStream_t stream) {
  using Fn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
  static Fn f = real<Fn>("__cudaLaunchKernel");
  noteLaunch(stream);
  return f(kernel, grid, block, args, sharedMem, stream);
}

extern "C" cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                               size_t sharedMem, cudaStream_t stream) {
  using Fn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
  static Fn f = real<Fn>("__cudaLaunchKernel_ptsz");
  noteLaunch(stream == nullptr ? cudaStreamPerThread : stream);
  return f(kernel, grid, block, args, sharedMem, stream);
}

extern "C" cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                                        size_t sharedMem, cudaStream_t stream) {
  using Fn = cudaError_t (*)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
  static Fn f = real<Fn>("cudaLaunchKernel");
  noteLaunch(stream);
  return f(func, grid, block, args, sharedMem, stream);
}

extern "C" cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
  using Fn = cudaError_t (*)(const cudaLaunchConfig_t *, const void *, void **);
  static Fn f = real<Fn>("cudaLaunchKernelExC");
  noteLaunch(config ? config->stream : nullptr);
  return f(config, func, args);
}

extern "C" cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  using Fn = cudaError_t (*)(void *, const void *, size_t, cudaMemcpyKind);
  static Fn f = real<Fn>("cudaMemcpy");
  noteCopy(dst, src, kind);
  return f(dst, src, count, kind);
}

extern "C" cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                                       cudaStream_t stream) {
  using Fn = cudaError_t (*)(void *, const void *, size_t, cudaMemcpyKind, cudaStream_t);
  static Fn f = real<Fn>("cudaMemcpyAsync");
  noteCopy(dst, src, kind);
  return f(dst, src, count, kind, stream);
}

extern "C" cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                    size_t height, cudaMemcpyKind kind) {
  using Fn = cudaError_t (*)(void *, size_t, const void *, size_t, size_t, size_t, cudaMemcpyKind);
  static Fn f = real<Fn>("cudaMemcpy2D");
  noteCopy(dst, src, kind);
  return f(dst, dpitch, src, spitch, width, height, kind);
}

extern "C" cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                         size_t width, size_t height, cudaMemcpyKind kind,
                                         cudaStream_t stream) {
  using Fn = cudaError_t (*)(void *, size_t, const void *, size_t, size_t, size_t, cudaMemcpyKind, cudaStream_t);
  static Fn f = real<Fn>("cudaMemcpy2DAsync");
  noteCopy(dst, src, kind);
  return f(dst, dpitch, src, spitch, width, height, kind, stream);
}
