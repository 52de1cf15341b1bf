/* cudaperf built-in CUDA declarations.
 *
 * Used when no CUDA toolkit is available (--cuda-headers=builtin): declares what typical .cu files
 * use from the toolkit -- the execution-space attributes, vector types and dim3, the launch
 * configuration hooks so <<<...>>> parses, warp intrinsics, atomics, barriers, math functions and
 * the runtime API called by host code around kernels -- so such files parse unchanged. Device
 * functions come from clang's own CUDA headers (resource dir); runtime API functions are only
 * declared: nothing is ever linked or run. */
#ifndef CUDAPERF_CUDA_BUILTIN_H
#define CUDAPERF_CUDA_BUILTIN_H

#define CUDA_VERSION 12050
#define CUDART_VERSION 12050
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 5
#define __CUDACC__ 1
#define __NVCC__ 1

#include <__clang_cuda_math_forward_declares.h>
#include <cmath>
#include <cstdlib>
#include <cstddef>
#include <cstdint>
#include <climits>
#include <stdlib.h>
#include <string.h>

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __grid_constant__ __attribute__((grid_constant))
#define __inline_hint__
#define CUDART_CB
#define CUDARTAPI

/* ---- vector types -------------------------------------------------------------------------- */
#define CUDAPERF_VEC1(T, N) struct N##1 { T x; };
#define CUDAPERF_VEC2(T, N, A) struct __align__(A) N##2 { T x, y; };
#define CUDAPERF_VEC3(T, N) struct N##3 { T x, y, z; };
#define CUDAPERF_VEC4(T, N, A) struct __align__(A) N##4 { T x, y, z, w; };
#define CUDAPERF_VECS(T, N, A2, A4) CUDAPERF_VEC1(T, N) CUDAPERF_VEC2(T, N, A2) CUDAPERF_VEC3(T, N) CUDAPERF_VEC4(T, N, A4)
CUDAPERF_VECS(signed char, char, 2, 4)
CUDAPERF_VECS(unsigned char, uchar, 2, 4)
CUDAPERF_VECS(short, short, 4, 8)
CUDAPERF_VECS(unsigned short, ushort, 4, 8)
CUDAPERF_VECS(int, int, 8, 16)
CUDAPERF_VECS(unsigned int, uint, 8, 16)
CUDAPERF_VECS(long, long, 16, 16)
CUDAPERF_VECS(unsigned long, ulong, 16, 16)
CUDAPERF_VECS(long long, longlong, 16, 16)
CUDAPERF_VECS(unsigned long long, ulonglong, 16, 16)
CUDAPERF_VECS(float, float, 8, 16)
CUDAPERF_VECS(double, double, 16, 16)

#define CUDAPERF_MAKE(N, T) \
  static __host__ __device__ __forceinline__ N##1 make_##N##1(T x) { N##1 r; r.x = x; return r; } \
  static __host__ __device__ __forceinline__ N##2 make_##N##2(T x, T y) { N##2 r; r.x = x; r.y = y; return r; } \
  static __host__ __device__ __forceinline__ N##3 make_##N##3(T x, T y, T z) { N##3 r; r.x = x; r.y = y; r.z = z; return r; } \
  static __host__ __device__ __forceinline__ N##4 make_##N##4(T x, T y, T z, T w) { N##4 r; r.x = x; r.y = y; r.z = z; r.w = w; return r; }
CUDAPERF_MAKE(char, signed char)
CUDAPERF_MAKE(uchar, unsigned char)
CUDAPERF_MAKE(short, short)
CUDAPERF_MAKE(ushort, unsigned short)
CUDAPERF_MAKE(int, int)
CUDAPERF_MAKE(uint, unsigned int)
CUDAPERF_MAKE(long, long)
CUDAPERF_MAKE(ulong, unsigned long)
CUDAPERF_MAKE(longlong, long long)
CUDAPERF_MAKE(ulonglong, unsigned long long)
CUDAPERF_MAKE(float, float)
CUDAPERF_MAKE(double, double)

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

/* ---- runtime API types ---------------------------------------------------------------------- */
typedef enum cudaError {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3, cudaErrorLaunchFailure = 719, cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101, cudaErrorNoDevice = 100, cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700, cudaErrorLaunchTimeout = 702, cudaErrorUnknown = 999
} cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4
} cudaMemcpyKind;
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8, cudaFuncAttributePreferredSharedMemoryCarveout = 9
};
enum cudaFuncCache { cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1, cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3 };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault = 0, cudaSharedMemBankSizeFourByte = 1, cudaSharedMemBankSizeEightByte = 2 };
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventDisableTiming 0x02
#define cudaMemAttachGlobal 0x01
#define cudaHostAllocDefault 0x00
struct cudaDeviceProp {
  char name[256]; size_t totalGlobalMem; size_t sharedMemPerBlock; int regsPerBlock; int warpSize;
  int maxThreadsPerBlock; int maxThreadsDim[3]; int maxGridSize[3]; int clockRate;
  int multiProcessorCount; int major; int minor; int maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor; int regsPerMultiprocessor; int memoryBusWidth;
  int memoryClockRate; int l2CacheSize; size_t sharedMemPerBlockOptin;
};
struct cudaFuncAttributes {
  size_t sharedSizeBytes; size_t constSizeBytes; size_t localSizeBytes; int maxThreadsPerBlock;
  int numRegs; int ptxVersion; int binaryVersion; int cacheModeCA; int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
};

/* ---- runtime API (host declarations only) --------------------------------------------------- */
extern "C" {
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream = 0);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, int attr, int device);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func);
cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value);
cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache cacheConfig);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize);
cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, const void *func, size_t dynamicSMemSize = 0, int blockSizeLimit = 0);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyHostToDevice);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, cudaStream_t stream);
/* Launch configuration hooks used by clang to lower <<<...>>>. */
cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, cudaStream_t stream = 0);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, cudaStream_t stream = 0);
}
template <class T> static inline cudaError_t cudaMalloc(T **devPtr, size_t size) { return cudaMalloc((void **)devPtr, size); }
template <class T> static inline cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal) { return cudaMallocManaged((void **)devPtr, size, flags); }
template <class T> static inline cudaError_t cudaMallocHost(T **ptr, size_t size) { return cudaMallocHost((void **)ptr, size); }
template <class T> static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, T *f) { return cudaFuncGetAttributes(a, (const void *)f); }
template <class T> static inline cudaError_t cudaFuncSetAttribute(T *f, cudaFuncAttribute a, int v) { return cudaFuncSetAttribute((const void *)f, a, v); }
template <class T> static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, T f, int b, size_t s) { return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, (const void *)f, b, s); }
template <class T> static inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0, cudaMemcpyKind kind = cudaMemcpyHostToDevice) { return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind); }

/* ---- device queries, stream-ordered allocation and extensible launches (CUDA 11.2 / 12) ------ */
/* Numbering of enum cudaDeviceAttr as in CUDA's driver_types.h (cudaperf-analyze --task answers
   these queries for the --arch device). */
enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7, cudaDevAttrMaxSharedMemoryPerBlock = 8, cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrL2CacheSize = 38, cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81, cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97, cudaDevAttrMaxBlocksPerMultiprocessor = 106
};
typedef struct cudaLaunchAttribute_st { int id; char val[64]; } cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st {
  dim3 gridDim; dim3 blockDim; size_t dynamicSmemBytes; cudaStream_t stream;
  cudaLaunchAttribute *attrs; unsigned int numAttrs;
} cudaLaunchConfig_t;
extern "C" {
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
}
template <class T> static inline cudaError_t cudaMallocAsync(T **p, size_t size, cudaStream_t stream) { return cudaMallocAsync((void **)p, size, stream); }
template <typename... ExpTypes, typename... ActTypes>
static inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(ExpTypes...), ActTypes &&...args) {
  void *pArgs[] = {(void *)&args..., nullptr};
  return cudaLaunchKernelExC(config, (const void *)kernel, pArgs);
}

/* ---- device side: clang's own CUDA device headers ------------------------------------------- */
#include "__clang_cuda_builtin_vars.h"
__device__ inline __cuda_builtin_threadIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_threadIdx_t::operator uint3() const { return uint3{x, y, z}; }
__device__ inline __cuda_builtin_blockIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockIdx_t::operator uint3() const { return uint3{x, y, z}; }
__device__ inline __cuda_builtin_blockDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockDim_t::operator uint3() const { return uint3{x, y, z}; }
__device__ inline __cuda_builtin_gridDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_gridDim_t::operator uint3() const { return uint3{x, y, z}; }

#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>

#define CUDAPERF_DEV static __device__ __forceinline__

/* Atomics, in terms of the helpers of __clang_cuda_device_functions.h. */
CUDAPERF_DEV int atomicAdd(int *p, int v) { return __iAtomicAdd(p, v); }
CUDAPERF_DEV unsigned atomicAdd(unsigned *p, unsigned v) { return __uAtomicAdd(p, v); }
CUDAPERF_DEV unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return __ullAtomicAdd(p, v); }
CUDAPERF_DEV float atomicAdd(float *p, float v) { return __fAtomicAdd(p, v); }
CUDAPERF_DEV double atomicAdd(double *p, double v) { return __dAtomicAdd(p, v); }
CUDAPERF_DEV int atomicSub(int *p, int v) { return __iAtomicAdd(p, -v); }
CUDAPERF_DEV unsigned atomicSub(unsigned *p, unsigned v) { return __uAtomicAdd(p, (unsigned)-(int)v); }
CUDAPERF_DEV int atomicExch(int *p, int v) { return __iAtomicExch(p, v); }
CUDAPERF_DEV unsigned atomicExch(unsigned *p, unsigned v) { return __uAtomicExch(p, v); }
CUDAPERF_DEV float atomicExch(float *p, float v) { return __fAtomicExch(p, v); }
CUDAPERF_DEV int atomicMin(int *p, int v) { return __iAtomicMin(p, v); }
CUDAPERF_DEV unsigned atomicMin(unsigned *p, unsigned v) { return __uAtomicMin(p, v); }
CUDAPERF_DEV int atomicMax(int *p, int v) { return __iAtomicMax(p, v); }
CUDAPERF_DEV unsigned atomicMax(unsigned *p, unsigned v) { return __uAtomicMax(p, v); }
CUDAPERF_DEV unsigned atomicInc(unsigned *p, unsigned v) { return __uAtomicInc(p, v); }
CUDAPERF_DEV unsigned atomicDec(unsigned *p, unsigned v) { return __uAtomicDec(p, v); }
CUDAPERF_DEV int atomicCAS(int *p, int c, int v) { return __iAtomicCAS(p, c, v); }
CUDAPERF_DEV unsigned atomicCAS(unsigned *p, unsigned c, unsigned v) { return __uAtomicCAS(p, c, v); }
CUDAPERF_DEV unsigned long long atomicCAS(unsigned long long *p, unsigned long long c, unsigned long long v) { return __ullAtomicCAS(p, c, v); }
CUDAPERF_DEV int atomicAnd(int *p, int v) { return __iAtomicAnd(p, v); }
CUDAPERF_DEV unsigned atomicAnd(unsigned *p, unsigned v) { return __uAtomicAnd(p, v); }
CUDAPERF_DEV int atomicOr(int *p, int v) { return __iAtomicOr(p, v); }
CUDAPERF_DEV unsigned atomicOr(unsigned *p, unsigned v) { return __uAtomicOr(p, v); }
CUDAPERF_DEV int atomicXor(int *p, int v) { return __iAtomicXor(p, v); }
CUDAPERF_DEV unsigned atomicXor(unsigned *p, unsigned v) { return __uAtomicXor(p, v); }
/* Scoped forms (sm_60_atomic_functions.h): the same memory operation, another coherence scope. */
#define CUDAPERF_SCOPED(OP, T) \
  CUDAPERF_DEV T OP##_block(T *p, T v) { return OP(p, v); } \
  CUDAPERF_DEV T OP##_system(T *p, T v) { return OP(p, v); }
#define CUDAPERF_SCOPED_INT(OP) CUDAPERF_SCOPED(OP, int) CUDAPERF_SCOPED(OP, unsigned)
CUDAPERF_SCOPED_INT(atomicAdd) CUDAPERF_SCOPED(atomicAdd, float) CUDAPERF_SCOPED(atomicAdd, double)
CUDAPERF_SCOPED(atomicAdd, unsigned long long)
CUDAPERF_SCOPED_INT(atomicSub) CUDAPERF_SCOPED_INT(atomicExch) CUDAPERF_SCOPED(atomicExch, float)
CUDAPERF_SCOPED_INT(atomicMin) CUDAPERF_SCOPED_INT(atomicMax) CUDAPERF_SCOPED_INT(atomicAnd)
CUDAPERF_SCOPED_INT(atomicOr) CUDAPERF_SCOPED_INT(atomicXor)
CUDAPERF_SCOPED(atomicInc, unsigned) CUDAPERF_SCOPED(atomicDec, unsigned)
#undef CUDAPERF_SCOPED_INT
#undef CUDAPERF_SCOPED
CUDAPERF_DEV int atomicCAS_block(int *p, int c, int v) { return atomicCAS(p, c, v); }
CUDAPERF_DEV int atomicCAS_system(int *p, int c, int v) { return atomicCAS(p, c, v); }
CUDAPERF_DEV unsigned atomicCAS_block(unsigned *p, unsigned c, unsigned v) { return atomicCAS(p, c, v); }
CUDAPERF_DEV unsigned atomicCAS_system(unsigned *p, unsigned c, unsigned v) { return atomicCAS(p, c, v); }

/* Texture and surface objects. Fetches are calls of the opaque __cudaperf_texture_fetch, which
 * the memory analyses list as texture accesses (the toolkit's headers give clang's inline PTX). */
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1, cudaBoundaryModeTrap = 2 };
template <class T> __device__ T __cudaperf_texture_fetch(cudaTextureObject_t t, float x, float y, float z);
template <class T> CUDAPERF_DEV T tex1Dfetch(cudaTextureObject_t t, int x) { return __cudaperf_texture_fetch<T>(t, x, 0, 0); }
template <class T> CUDAPERF_DEV T tex1D(cudaTextureObject_t t, float x) { return __cudaperf_texture_fetch<T>(t, x, 0, 0); }
template <class T> CUDAPERF_DEV T tex2D(cudaTextureObject_t t, float x, float y) { return __cudaperf_texture_fetch<T>(t, x, y, 0); }
template <class T> CUDAPERF_DEV T tex3D(cudaTextureObject_t t, float x, float y, float z) { return __cudaperf_texture_fetch<T>(t, x, y, z); }
template <class T> CUDAPERF_DEV T tex1DLayered(cudaTextureObject_t t, float x, int layer) { return __cudaperf_texture_fetch<T>(t, x, 0, layer); }
template <class T> CUDAPERF_DEV T tex2DLayered(cudaTextureObject_t t, float x, float y, int layer) { return __cudaperf_texture_fetch<T>(t, x, y, layer); }
template <class T> CUDAPERF_DEV void tex1Dfetch(T *r, cudaTextureObject_t t, int x) { *r = tex1Dfetch<T>(t, x); }
template <class T> CUDAPERF_DEV void tex2D(T *r, cudaTextureObject_t t, float x, float y) { *r = tex2D<T>(t, x, y); }
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;
CUDAPERF_DEV unsigned int __isGlobal(const void *p) { return __nvvm_isspacep_global(p); }
CUDAPERF_DEV unsigned int __isShared(const void *p) { return __nvvm_isspacep_shared(p); }
CUDAPERF_DEV unsigned int __isConstant(const void *p) { return __nvvm_isspacep_const(p); }
CUDAPERF_DEV unsigned int __isLocal(const void *p) { return __nvvm_isspacep_local(p); }
CUDAPERF_DEV size_t __cvta_generic_to_shared(const void *p) {
  return (size_t)(__attribute__((address_space(3))) const void *)p;
}
CUDAPERF_DEV size_t __cvta_generic_to_global(const void *p) {
  return (size_t)(__attribute__((address_space(1))) const void *)p;
}
#undef CUDAPERF_DEV

#include <__clang_cuda_intrinsics.h>

#endif /* CUDAPERF_CUDA_BUILTIN_H */
