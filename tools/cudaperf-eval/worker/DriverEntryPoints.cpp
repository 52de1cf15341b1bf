// A candidate can fetch driver functions by name (cuGetProcAddress, cudaGetDriverEntryPoint[ByVersion])
// instead of linking them; the real lookups would hand it libcuda's functions and bypass the
// worker's accounting. These wrappers do the real lookup, then hand back the worker's own
// definition where the worker interposes that function.
#include "RealSymbols.h"

#include <cstring>
#include <cuda.h>
#include <cuda_runtime_api.h>

// Per-thread-stream variants defined in AllocationInterpose.cpp and Interpose.cpp.
extern "C" {
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *, size_t, CUstream);
CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr, CUstream);
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     CUstream, void **, void **);
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *, CUfunction, void **, void **);
}

namespace {

using namespace cudaperf::worker;

CUresult CUDAAPI procAddressV1(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);

struct Substitute {
  const char *name;  // as asked for, without version suffix
  void *plain;       // the worker's definition
  void *perThread;   // its per-thread-default-stream variant (null: the same)
};

const Substitute *substitutes(size_t &n) {
  static const Substitute table[] = {
      {"cuMemAlloc", reinterpret_cast<void *>(&cuMemAlloc), nullptr},
      {"cuMemAllocPitch", reinterpret_cast<void *>(&cuMemAllocPitch), nullptr},
      {"cuMemAllocManaged", reinterpret_cast<void *>(&cuMemAllocManaged), nullptr},
      {"cuMemFree", reinterpret_cast<void *>(&cuMemFree), nullptr},
      {"cuMemAllocHost", reinterpret_cast<void *>(&cuMemAllocHost), nullptr},
      {"cuMemHostAlloc", reinterpret_cast<void *>(&cuMemHostAlloc), nullptr},
      {"cuMemFreeHost", reinterpret_cast<void *>(&cuMemFreeHost), nullptr},
      {"cuMemHostRegister", reinterpret_cast<void *>(&cuMemHostRegister), nullptr},
      {"cuMemHostUnregister", reinterpret_cast<void *>(&cuMemHostUnregister), nullptr},
      {"cuMemAllocAsync", reinterpret_cast<void *>(&cuMemAllocAsync), reinterpret_cast<void *>(&cuMemAllocAsync_ptsz)},
      {"cuMemAllocFromPoolAsync", reinterpret_cast<void *>(&cuMemAllocFromPoolAsync),
       reinterpret_cast<void *>(&cuMemAllocFromPoolAsync_ptsz)},
      {"cuMemFreeAsync", reinterpret_cast<void *>(&cuMemFreeAsync), reinterpret_cast<void *>(&cuMemFreeAsync_ptsz)},
      {"cuMemPoolCreate", reinterpret_cast<void *>(&cuMemPoolCreate), nullptr},
      {"cuMemPoolDestroy", reinterpret_cast<void *>(&cuMemPoolDestroy), nullptr},
      {"cuMemCreate", reinterpret_cast<void *>(&cuMemCreate), nullptr},
      {"cuMemRelease", reinterpret_cast<void *>(&cuMemRelease), nullptr},
      {"cuMemMap", reinterpret_cast<void *>(&cuMemMap), nullptr},
      {"cuMemUnmap", reinterpret_cast<void *>(&cuMemUnmap), nullptr},
      {"cuArrayCreate", reinterpret_cast<void *>(&cuArrayCreate), nullptr},
      {"cuArray3DCreate", reinterpret_cast<void *>(&cuArray3DCreate), nullptr},
      {"cuArrayDestroy", reinterpret_cast<void *>(&cuArrayDestroy), nullptr},
      {"cuMipmappedArrayCreate", reinterpret_cast<void *>(&cuMipmappedArrayCreate), nullptr},
      {"cuMipmappedArrayDestroy", reinterpret_cast<void *>(&cuMipmappedArrayDestroy), nullptr},
      {"cuLaunchKernel", reinterpret_cast<void *>(&cuLaunchKernel), reinterpret_cast<void *>(&cuLaunchKernel_ptsz)},
      {"cuLaunchKernelEx", reinterpret_cast<void *>(&cuLaunchKernelEx),
       reinterpret_cast<void *>(&cuLaunchKernelEx_ptsz)},
      {"cuMemcpyHtoD", reinterpret_cast<void *>(&cuMemcpyHtoD), nullptr},
      {"cuMemcpyDtoH", reinterpret_cast<void *>(&cuMemcpyDtoH), nullptr},
      {"cuMemcpyHtoDAsync", reinterpret_cast<void *>(&cuMemcpyHtoDAsync), nullptr},
      {"cuMemcpyDtoHAsync", reinterpret_cast<void *>(&cuMemcpyDtoHAsync), nullptr},
  };
  n = sizeof table / sizeof table[0];
  return table;
}

// After a successful real lookup: the worker's definition instead, where it has one.
void substitute(const char *symbol, void **pfn, int cudaVersion, bool perThread) {
  if (!symbol || !pfn || !*pfn)
    return;
  if (std::strcmp(symbol, "cuGetProcAddress") == 0) {
    *pfn = cudaVersion >= 12000 ? reinterpret_cast<void *>(&cuGetProcAddress_v2)
                                : reinterpret_cast<void *>(&procAddressV1);
    return;
  }
  // Versions before 3.2 of the memory functions are the 32-bit ones nothing uses any more.
  size_t n = 0;
  const Substitute *t = substitutes(n);
  for (size_t i = 0; i < n; ++i)
    if (std::strcmp(symbol, t[i].name) == 0) {
      *pfn = perThread && t[i].perThread ? t[i].perThread : t[i].plain;
      return;
    }
}

CUresult CUDAAPI procAddressV1(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags) {
  static auto f = driverFn<CUresult (*)(const char *, void **, int, cuuint64_t)>("cuGetProcAddress");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(symbol, pfn, cudaVersion, flags);
  if (r == CUDA_SUCCESS)
    substitute(symbol, pfn, cudaVersion, flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  return r;
}

cudaError_t entryPoint(const char *real, const char *symbol, void **funcPtr, unsigned cudaVersion,
                       unsigned long long flags, cudaDriverEntryPointQueryResult *status, bool byVersion) {
  cudaError_t e;
  if (byVersion) {
    using Fn = cudaError_t (*)(const char *, void **, unsigned, unsigned long long, cudaDriverEntryPointQueryResult *);
    Fn f = runtimeFn<Fn>(real);
    e = f ? f(symbol, funcPtr, cudaVersion, flags, status) : cudaErrorNotSupported;
  } else {
    using Fn = cudaError_t (*)(const char *, void **, unsigned long long, cudaDriverEntryPointQueryResult *);
    Fn f = runtimeFn<Fn>(real);
    e = f ? f(symbol, funcPtr, flags, status) : cudaErrorNotSupported;
  }
  if (e == cudaSuccess)
    substitute(symbol, funcPtr, byVersion ? int(cudaVersion) : 13000, flags & cudaEnablePerThreadDefaultStream);
  return e;
}

} // namespace

extern "C" CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                            CUdriverProcAddressQueryResult *status) {
  static auto f = driverFn<CUresult (*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *)>(
      "cuGetProcAddress_v2");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(symbol, pfn, cudaVersion, flags, status);
  if (r == CUDA_SUCCESS)
    substitute(symbol, pfn, cudaVersion, flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  return r;
}

// The unversioned ABI name (before CUDA 12) of the same lookup.
extern "C" CUresult CUDAAPI cuGetProcAddress_v1_abi(const char *, void **, int, cuuint64_t)
    __asm__("cuGetProcAddress");
extern "C" CUresult CUDAAPI cuGetProcAddress_v1_abi(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags) {
  return procAddressV1(symbol, pfn, cudaVersion, flags);
}

extern "C" cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                               cudaDriverEntryPointQueryResult *status) {
  return entryPoint("cudaGetDriverEntryPoint", symbol, funcPtr, 0, flags, status, false);
}
extern "C" cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr, unsigned long long flags,
                                                    cudaDriverEntryPointQueryResult *status) {
  return entryPoint("cudaGetDriverEntryPoint_ptsz", symbol, funcPtr, 0, flags, status, false);
}
extern "C" cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned cudaVersion,
                                                        unsigned long long flags,
                                                        cudaDriverEntryPointQueryResult *status) {
  return entryPoint("cudaGetDriverEntryPointByVersion", symbol, funcPtr, cudaVersion, flags, status, true);
}
extern "C" cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr, unsigned cudaVersion,
                                                             unsigned long long flags,
                                                             cudaDriverEntryPointQueryResult *status) {
  return entryPoint("cudaGetDriverEntryPointByVersion_ptsz", symbol, funcPtr, cudaVersion, flags, status, true);
}
