// Interposed allocation entry points of the CUDA runtime and driver (see AllocationInterpose.h).
// Each calls the real function (runtime: the next definition, libcudart's; driver: libcuda's,
// looked up in libcuda.so.1 itself, which libcudart loads privately), then reports what it did.
#include "AllocationInterpose.h"
#include "RealSymbols.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>

using cudaperf::runtime::MemoryKind;
using cudaperf::runtime::Owner;

namespace cudaperf::worker {

namespace {

thread_local int gWorkerDepth = 0;
std::atomic<uint64_t> gCandidateOutOfMemory{0};

Owner owner() { return gWorkerDepth > 0 ? Owner::Worker : Owner::Candidate; }
uint64_t key(const void *p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); }


bool outOfMemory(cudaError_t e) { return e == cudaErrorMemoryAllocation; }
bool outOfMemory(CUresult r) { return r == CUDA_ERROR_OUT_OF_MEMORY; }

// The ledger's record of one call's result.
template <typename R> void noteAllocation(R rc, bool ok, uint64_t handle, uint64_t bytes, MemoryKind kind,
                                          uint64_t pool = 0) {
  auto &l = allocationLedger();
  if (ok) {
    l.allocated(handle, bytes, kind, owner(), pool);
    return;
  }
  l.failedAllocation(bytes, owner());
  if (outOfMemory(rc) && owner() == Owner::Candidate)
    ++gCandidateOutOfMemory;
}

// Before a free is forwarded: a candidate may not free the worker's own buffers.
bool mayFree(uint64_t handle) {
  if (owner() == Owner::Worker || handle == 0)
    return true;
  if (allocationLedger().ownerOf(handle) == Owner::Worker) {
    allocationLedger().refusedFree(handle);
    return false;
  }
  return true;
}
template <typename R> R noteFree(R rc, bool ok, uint64_t handle) {
  if (handle == 0)
    return rc; // freeing null is a no-op (and the usual way to create the context)
  if (ok)
    allocationLedger().freed(handle, owner());
  else
    allocationLedger().invalidFree(owner());
  return rc;
}

uint64_t channelBytes(const cudaChannelFormatDesc *d) {
  if (!d)
    return 4;
  int bits = d->x + d->y + d->z + d->w;
  return bits > 0 ? uint64_t(bits + 7) / 8 : 4;
}
uint64_t extentElements(cudaExtent e) {
  return uint64_t(e.width) * (e.height ? e.height : 1) * (e.depth ? e.depth : 1);
}
// A mipmapped array's levels add at most a third to its base level.
uint64_t withMipLevels(uint64_t base, unsigned levels) { return levels > 1 ? base + base / 3 : base; }

uint64_t formatBytes(CUarray_format f) {
  switch (int(f) & 0xFF) {
  case 0x01: case 0x08: return 1;
  case 0x02: case 0x09: case 0x10: return 2;
  default: return 4;
  }
}
uint64_t arrayBytes(size_t w, size_t h, size_t d, CUarray_format f, unsigned channels) {
  return uint64_t(w) * (h ? h : 1) * (d ? d : 1) * (channels ? channels : 1) * formatBytes(f);
}

cudaMemPool_t currentPool() {
  int dev = 0;
  cudaMemPool_t pool = nullptr;
  static auto getDevice = runtimeFn<cudaError_t (*)(int *)>("cudaGetDevice");
  static auto getPool = runtimeFn<cudaError_t (*)(cudaMemPool_t *, int)>("cudaDeviceGetMemPool");
  if (getDevice && getPool && getDevice(&dev) == cudaSuccess && getPool(&pool, dev) == cudaSuccess)
    return pool;
  return nullptr;
}

} // namespace

runtime::AllocationLedger &allocationLedger() {
  static runtime::AllocationLedger *ledger = new runtime::AllocationLedger(); // never destroyed: used until _exit
  return *ledger;
}

WorkerAllocations::WorkerAllocations() { ++gWorkerDepth; }
WorkerAllocations::~WorkerAllocations() { --gWorkerDepth; }

uint64_t takeCandidateOutOfMemory() { return gCandidateOutOfMemory.exchange(0); }

runtime::MemorySummary candidateMemory() {
  WorkerAllocations self;
  std::map<uint64_t, uint64_t> reserved;
  auto reserveOf = [&](cudaMemPool_t pool) {
    uint64_t bytes = 0;
    if (pool && cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &bytes) == cudaSuccess)
      reserved[key(pool)] = bytes;
    else
      cudaGetLastError();
  };
  int dev = 0;
  cudaGetDevice(&dev);
  cudaMemPool_t pool = nullptr;
  if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
    reserveOf(pool);
  if (cudaDeviceGetMemPool(&pool, dev) == cudaSuccess)
    reserveOf(pool);
  for (uint64_t p : allocationLedger().pools(Owner::Candidate))
    reserveOf(reinterpret_cast<cudaMemPool_t>(uintptr_t(p)));
  uint64_t graph = 0;
  if (cudaDeviceGetGraphMemAttribute(dev, cudaGraphMemAttrReservedMemCurrent, &graph) != cudaSuccess) {
    graph = 0;
    cudaGetLastError();
  }
  return allocationLedger().summary(Owner::Candidate, reserved, graph);
}

} // namespace cudaperf::worker

using namespace cudaperf::worker;

// ---- CUDA runtime ---------------------------------------------------------------------------

extern "C" cudaError_t cudaMalloc(void **p, size_t size) {
  static auto f = runtimeFn<cudaError_t (*)(void **, size_t)>("cudaMalloc");
  cudaError_t e = f(p, size);
  noteAllocation(e, e == cudaSuccess, key(p ? *p : nullptr), size, MemoryKind::Device);
  return e;
}

extern "C" cudaError_t cudaMallocManaged(void **p, size_t size, unsigned flags) {
  static auto f = runtimeFn<cudaError_t (*)(void **, size_t, unsigned)>("cudaMallocManaged");
  cudaError_t e = f(p, size, flags);
  noteAllocation(e, e == cudaSuccess, key(p ? *p : nullptr), size, MemoryKind::Managed);
  return e;
}

extern "C" cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
  static auto f = runtimeFn<cudaError_t (*)(void **, size_t *, size_t, size_t)>("cudaMallocPitch");
  cudaError_t e = f(p, pitch, width, height);
  bool ok = e == cudaSuccess;
  noteAllocation(e, ok, key(ok ? *p : nullptr), ok ? uint64_t(*pitch) * height : uint64_t(width) * height,
                 MemoryKind::Pitched);
  return e;
}

extern "C" cudaError_t cudaMalloc3D(cudaPitchedPtr *p, cudaExtent extent) {
  static auto f = runtimeFn<cudaError_t (*)(cudaPitchedPtr *, cudaExtent)>("cudaMalloc3D");
  cudaError_t e = f(p, extent);
  bool ok = e == cudaSuccess;
  uint64_t rows = uint64_t(extent.height ? extent.height : 1) * (extent.depth ? extent.depth : 1);
  noteAllocation(e, ok, key(ok ? p->ptr : nullptr), (ok ? p->pitch : extent.width) * rows, MemoryKind::Pitched);
  return e;
}

extern "C" cudaError_t cudaMallocArray(cudaArray_t *a, const cudaChannelFormatDesc *desc, size_t w, size_t h,
                                       unsigned flags) {
  static auto f = runtimeFn<cudaError_t (*)(cudaArray_t *, const cudaChannelFormatDesc *, size_t, size_t, unsigned)>(
      "cudaMallocArray");
  cudaError_t e = f(a, desc, w, h, flags);
  noteAllocation(e, e == cudaSuccess, key(a ? *a : nullptr), uint64_t(w) * (h ? h : 1) * channelBytes(desc),
                 MemoryKind::Array);
  return e;
}

extern "C" cudaError_t cudaMalloc3DArray(cudaArray_t *a, const cudaChannelFormatDesc *desc, cudaExtent extent,
                                         unsigned flags) {
  static auto f = runtimeFn<cudaError_t (*)(cudaArray_t *, const cudaChannelFormatDesc *, cudaExtent, unsigned)>(
      "cudaMalloc3DArray");
  cudaError_t e = f(a, desc, extent, flags);
  noteAllocation(e, e == cudaSuccess, key(a ? *a : nullptr), extentElements(extent) * channelBytes(desc),
                 MemoryKind::Array);
  return e;
}

extern "C" cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *a, const cudaChannelFormatDesc *desc,
                                                cudaExtent extent, unsigned levels, unsigned flags) {
  static auto f = runtimeFn<cudaError_t (*)(cudaMipmappedArray_t *, const cudaChannelFormatDesc *, cudaExtent,
                                            unsigned, unsigned)>("cudaMallocMipmappedArray");
  cudaError_t e = f(a, desc, extent, levels, flags);
  noteAllocation(e, e == cudaSuccess, key(a ? *a : nullptr),
                 withMipLevels(extentElements(extent) * channelBytes(desc), levels), MemoryKind::Array);
  return e;
}

extern "C" cudaError_t cudaFree(void *p) {
  static auto f = runtimeFn<cudaError_t (*)(void *)>("cudaFree");
  if (!mayFree(key(p)))
    return cudaErrorInvalidValue;
  cudaError_t e = f(p);
  return noteFree(e, e == cudaSuccess, key(p));
}

extern "C" cudaError_t cudaFreeArray(cudaArray_t a) {
  static auto f = runtimeFn<cudaError_t (*)(cudaArray_t)>("cudaFreeArray");
  cudaError_t e = f(a);
  return noteFree(e, e == cudaSuccess, key(a));
}

extern "C" cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t a) {
  static auto f = runtimeFn<cudaError_t (*)(cudaMipmappedArray_t)>("cudaFreeMipmappedArray");
  cudaError_t e = f(a);
  return noteFree(e, e == cudaSuccess, key(a));
}

extern "C" cudaError_t cudaMallocHost(void **p, size_t size) {
  static auto f = runtimeFn<cudaError_t (*)(void **, size_t)>("cudaMallocHost");
  cudaError_t e = f(p, size);
  noteAllocation(e, e == cudaSuccess, key(p ? *p : nullptr), size, MemoryKind::PinnedHost);
  return e;
}

extern "C" cudaError_t cudaHostAlloc(void **p, size_t size, unsigned flags) {
  static auto f = runtimeFn<cudaError_t (*)(void **, size_t, unsigned)>("cudaHostAlloc");
  cudaError_t e = f(p, size, flags);
  noteAllocation(e, e == cudaSuccess, key(p ? *p : nullptr), size, MemoryKind::PinnedHost);
  return e;
}

extern "C" cudaError_t cudaFreeHost(void *p) {
  static auto f = runtimeFn<cudaError_t (*)(void *)>("cudaFreeHost");
  if (!mayFree(key(p)))
    return cudaErrorInvalidValue;
  cudaError_t e = f(p);
  return noteFree(e, e == cudaSuccess, key(p));
}

extern "C" cudaError_t cudaHostRegister(void *p, size_t size, unsigned flags) {
  static auto f = runtimeFn<cudaError_t (*)(void *, size_t, unsigned)>("cudaHostRegister");
  cudaError_t e = f(p, size, flags);
  noteAllocation(e, e == cudaSuccess, key(p), size, MemoryKind::RegisteredHost);
  return e;
}

extern "C" cudaError_t cudaHostUnregister(void *p) {
  static auto f = runtimeFn<cudaError_t (*)(void *)>("cudaHostUnregister");
  cudaError_t e = f(p);
  return noteFree(e, e == cudaSuccess, key(p));
}

namespace {
cudaError_t mallocAsync(const char *name, void **p, size_t size, cudaStream_t s) {
  using Fn = cudaError_t (*)(void **, size_t, cudaStream_t);
  Fn f = runtimeFn<Fn>(name);
  cudaError_t e = f(p, size, s);
  noteAllocation(e, e == cudaSuccess, key(p ? *p : nullptr), size, MemoryKind::Async, key(currentPool()));
  return e;
}
cudaError_t mallocFromPoolAsync(const char *name, void **p, size_t size, cudaMemPool_t pool, cudaStream_t s) {
  using Fn = cudaError_t (*)(void **, size_t, cudaMemPool_t, cudaStream_t);
  Fn f = runtimeFn<Fn>(name);
  cudaError_t e = f(p, size, pool, s);
  noteAllocation(e, e == cudaSuccess, key(p ? *p : nullptr), size, MemoryKind::Async, key(pool));
  return e;
}
cudaError_t freeAsync(const char *name, void *p, cudaStream_t s) {
  using Fn = cudaError_t (*)(void *, cudaStream_t);
  Fn f = runtimeFn<Fn>(name);
  if (!mayFree(key(p)))
    return cudaErrorInvalidValue;
  cudaError_t e = f(p, s);
  return noteFree(e, e == cudaSuccess, key(p));
}
} // namespace

extern "C" cudaError_t cudaMallocAsync(void **p, size_t size, cudaStream_t s) {
  return mallocAsync("cudaMallocAsync", p, size, s);
}
extern "C" cudaError_t cudaMallocAsync_ptsz(void **p, size_t size, cudaStream_t s) {
  return mallocAsync("cudaMallocAsync_ptsz", p, size, s);
}
extern "C" cudaError_t cudaMallocFromPoolAsync(void **p, size_t size, cudaMemPool_t pool, cudaStream_t s) {
  return mallocFromPoolAsync("cudaMallocFromPoolAsync", p, size, pool, s);
}
extern "C" cudaError_t cudaMallocFromPoolAsync_ptsz(void **p, size_t size, cudaMemPool_t pool, cudaStream_t s) {
  return mallocFromPoolAsync("cudaMallocFromPoolAsync_ptsz", p, size, pool, s);
}
extern "C" cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { return freeAsync("cudaFreeAsync", p, s); }
extern "C" cudaError_t cudaFreeAsync_ptsz(void *p, cudaStream_t s) { return freeAsync("cudaFreeAsync_ptsz", p, s); }

extern "C" cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const cudaMemPoolProps *props) {
  static auto f = runtimeFn<cudaError_t (*)(cudaMemPool_t *, const cudaMemPoolProps *)>("cudaMemPoolCreate");
  cudaError_t e = f(pool, props);
  if (e == cudaSuccess)
    allocationLedger().poolCreated(key(*pool), owner());
  return e;
}

extern "C" cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  static auto f = runtimeFn<cudaError_t (*)(cudaMemPool_t)>("cudaMemPoolDestroy");
  cudaError_t e = f(pool);
  if (e == cudaSuccess)
    allocationLedger().poolDestroyed(key(pool));
  return e;
}

// ---- CUDA driver ----------------------------------------------------------------------------

extern "C" CUresult CUDAAPI cuMemAlloc(CUdeviceptr *p, size_t size) {
  static auto f = driverFn<CUresult (*)(CUdeviceptr *, size_t)>("cuMemAlloc_v2");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(p, size);
  noteAllocation(r, r == CUDA_SUCCESS, p ? uint64_t(*p) : 0, size, MemoryKind::Device);
  return r;
}

extern "C" CUresult CUDAAPI cuMemAllocPitch(CUdeviceptr *p, size_t *pitch, size_t width, size_t height,
                                           unsigned elementBytes) {
  static auto f = driverFn<CUresult (*)(CUdeviceptr *, size_t *, size_t, size_t, unsigned)>("cuMemAllocPitch_v2");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(p, pitch, width, height, elementBytes);
  bool ok = r == CUDA_SUCCESS;
  noteAllocation(r, ok, ok ? uint64_t(*p) : 0, (ok ? *pitch : width) * uint64_t(height), MemoryKind::Pitched);
  return r;
}

extern "C" CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *p, size_t size, unsigned flags) {
  static auto f = driverFn<CUresult (*)(CUdeviceptr *, size_t, unsigned)>("cuMemAllocManaged");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(p, size, flags);
  noteAllocation(r, r == CUDA_SUCCESS, p ? uint64_t(*p) : 0, size, MemoryKind::Managed);
  return r;
}

extern "C" CUresult CUDAAPI cuMemFree(CUdeviceptr p) {
  static auto f = driverFn<CUresult (*)(CUdeviceptr)>("cuMemFree_v2");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!mayFree(uint64_t(p)))
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = f(p);
  return noteFree(r, r == CUDA_SUCCESS, uint64_t(p));
}

extern "C" CUresult CUDAAPI cuMemAllocHost(void **p, size_t size) {
  static auto f = driverFn<CUresult (*)(void **, size_t)>("cuMemAllocHost_v2");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(p, size);
  noteAllocation(r, r == CUDA_SUCCESS, key(p ? *p : nullptr), size, MemoryKind::PinnedHost);
  return r;
}

extern "C" CUresult CUDAAPI cuMemHostAlloc(void **p, size_t size, unsigned flags) {
  static auto f = driverFn<CUresult (*)(void **, size_t, unsigned)>("cuMemHostAlloc");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(p, size, flags);
  noteAllocation(r, r == CUDA_SUCCESS, key(p ? *p : nullptr), size, MemoryKind::PinnedHost);
  return r;
}

extern "C" CUresult CUDAAPI cuMemFreeHost(void *p) {
  static auto f = driverFn<CUresult (*)(void *)>("cuMemFreeHost");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!mayFree(key(p)))
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = f(p);
  return noteFree(r, r == CUDA_SUCCESS, key(p));
}

extern "C" CUresult CUDAAPI cuMemHostRegister(void *p, size_t size, unsigned flags) {
  static auto f = driverFn<CUresult (*)(void *, size_t, unsigned)>("cuMemHostRegister_v2");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(p, size, flags);
  noteAllocation(r, r == CUDA_SUCCESS, key(p), size, MemoryKind::RegisteredHost);
  return r;
}

extern "C" CUresult CUDAAPI cuMemHostUnregister(void *p) {
  static auto f = driverFn<CUresult (*)(void *)>("cuMemHostUnregister");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(p);
  return noteFree(r, r == CUDA_SUCCESS, key(p));
}

namespace {
CUresult driverAllocAsync(const char *name, CUdeviceptr *p, size_t size, CUstream s) {
  using Fn = CUresult (*)(CUdeviceptr *, size_t, CUstream);
  Fn f = driverFn<Fn>(name);
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(p, size, s);
  noteAllocation(r, r == CUDA_SUCCESS, p ? uint64_t(*p) : 0, size, MemoryKind::Async, key(currentPool()));
  return r;
}
CUresult driverAllocFromPoolAsync(const char *name, CUdeviceptr *p, size_t size, CUmemoryPool pool, CUstream s) {
  using Fn = CUresult (*)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
  Fn f = driverFn<Fn>(name);
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(p, size, pool, s);
  noteAllocation(r, r == CUDA_SUCCESS, p ? uint64_t(*p) : 0, size, MemoryKind::Async, key(pool));
  return r;
}
CUresult driverFreeAsync(const char *name, CUdeviceptr p, CUstream s) {
  using Fn = CUresult (*)(CUdeviceptr, CUstream);
  Fn f = driverFn<Fn>(name);
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!mayFree(uint64_t(p)))
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = f(p, s);
  return noteFree(r, r == CUDA_SUCCESS, uint64_t(p));
}
} // namespace

extern "C" CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *p, size_t size, CUstream s) {
  return driverAllocAsync("cuMemAllocAsync", p, size, s);
}
extern "C" CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t size, CUstream s) {
  return driverAllocAsync("cuMemAllocAsync_ptsz", p, size, s);
}
extern "C" CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t size, CUmemoryPool pool, CUstream s) {
  return driverAllocFromPoolAsync("cuMemAllocFromPoolAsync", p, size, pool, s);
}
extern "C" CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *p, size_t size, CUmemoryPool pool, CUstream s) {
  return driverAllocFromPoolAsync("cuMemAllocFromPoolAsync_ptsz", p, size, pool, s);
}
extern "C" CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr p, CUstream s) { return driverFreeAsync("cuMemFreeAsync", p, s); }
extern "C" CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s) {
  return driverFreeAsync("cuMemFreeAsync_ptsz", p, s);
}

extern "C" CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props) {
  static auto f = driverFn<CUresult (*)(CUmemoryPool *, const CUmemPoolProps *)>("cuMemPoolCreate");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(pool, props);
  if (r == CUDA_SUCCESS)
    allocationLedger().poolCreated(key(*pool), owner());
  return r;
}

extern "C" CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool) {
  static auto f = driverFn<CUresult (*)(CUmemoryPool)>("cuMemPoolDestroy");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(pool);
  if (r == CUDA_SUCCESS)
    allocationLedger().poolDestroyed(key(pool));
  return r;
}

extern "C" CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *h, size_t size, const CUmemAllocationProp *prop,
                                       unsigned long long flags) {
  static auto f = driverFn<CUresult (*)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                                        unsigned long long)>("cuMemCreate");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(h, size, prop, flags);
  if (r == CUDA_SUCCESS) {
    // Pinned host memory can be created this way too.
    bool host = prop && prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE;
    if (host)
      allocationLedger().allocated(uint64_t(*h), size, MemoryKind::PinnedHost, owner());
    else
      allocationLedger().physicalCreated(uint64_t(*h), size, owner());
  } else {
    noteAllocation(r, false, 0, size, MemoryKind::Physical);
  }
  return r;
}

extern "C" CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle h) {
  static auto f = driverFn<CUresult (*)(CUmemGenericAllocationHandle)>("cuMemRelease");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!mayFree(uint64_t(h)))
    return CUDA_ERROR_INVALID_VALUE;
  CUresult r = f(h);
  if (r == CUDA_SUCCESS) {
    if (!allocationLedger().physicalReleased(uint64_t(h)))
      allocationLedger().freed(uint64_t(h), owner()); // a host-memory handle
  } else {
    allocationLedger().invalidFree(owner());
  }
  return r;
}

extern "C" CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h,
                                    unsigned long long flags) {
  static auto f = driverFn<CUresult (*)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                                        unsigned long long)>("cuMemMap");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(ptr, size, offset, h, flags);
  if (r == CUDA_SUCCESS)
    allocationLedger().mapped(uint64_t(ptr), size, uint64_t(h));
  return r;
}

extern "C" CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size) {
  static auto f = driverFn<CUresult (*)(CUdeviceptr, size_t)>("cuMemUnmap");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(ptr, size);
  if (r == CUDA_SUCCESS)
    allocationLedger().unmapped(uint64_t(ptr), size);
  return r;
}

extern "C" CUresult CUDAAPI cuArrayCreate(CUarray *a, const CUDA_ARRAY_DESCRIPTOR *d) {
  static auto f = driverFn<CUresult (*)(CUarray *, const CUDA_ARRAY_DESCRIPTOR *)>("cuArrayCreate_v2");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(a, d);
  noteAllocation(r, r == CUDA_SUCCESS, key(a ? *a : nullptr),
                 d ? arrayBytes(d->Width, d->Height, 1, d->Format, d->NumChannels) : 0, MemoryKind::Array);
  return r;
}

extern "C" CUresult CUDAAPI cuArray3DCreate(CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d) {
  static auto f = driverFn<CUresult (*)(CUarray *, const CUDA_ARRAY3D_DESCRIPTOR *)>("cuArray3DCreate_v2");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(a, d);
  noteAllocation(r, r == CUDA_SUCCESS, key(a ? *a : nullptr),
                 d ? arrayBytes(d->Width, d->Height, d->Depth, d->Format, d->NumChannels) : 0, MemoryKind::Array);
  return r;
}

extern "C" CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *a, const CUDA_ARRAY3D_DESCRIPTOR *d,
                                                  unsigned levels) {
  static auto f = driverFn<CUresult (*)(CUmipmappedArray *, const CUDA_ARRAY3D_DESCRIPTOR *, unsigned)>(
      "cuMipmappedArrayCreate");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(a, d, levels);
  noteAllocation(r, r == CUDA_SUCCESS, key(a ? *a : nullptr),
                 d ? withMipLevels(arrayBytes(d->Width, d->Height, d->Depth, d->Format, d->NumChannels), levels) : 0,
                 MemoryKind::Array);
  return r;
}

extern "C" CUresult CUDAAPI cuArrayDestroy(CUarray a) {
  static auto f = driverFn<CUresult (*)(CUarray)>("cuArrayDestroy");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(a);
  return noteFree(r, r == CUDA_SUCCESS, key(a));
}

extern "C" CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray a) {
  static auto f = driverFn<CUresult (*)(CUmipmappedArray)>("cuMipmappedArrayDestroy");
  if (!f)
    return CUDA_ERROR_NOT_INITIALIZED;
  CUresult r = f(a);
  return noteFree(r, r == CUDA_SUCCESS, key(a));
}
