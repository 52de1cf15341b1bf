/* cudaperf compatibility header: what nvcc provides and clang 22's CUDA mode does not, so that
 * files nvcc compiles parse unchanged. Force-included after the CUDA headers in both header modes
 * (the toolkit's with clang's wrapper, or cudaperf's built-in declarations). Definitions only need
 * to give the analyses the right memory operations: nothing here is ever run or assembled (the
 * register counts come from NVIDIA's compiler on the original source).
 *
 *  - host overloads of min/max for integers and floats (nvcc's math_functions.hpp declares them for
 *    host and device; clang's headers for device code only);
 *  - the cache-hint loads and stores __ldca/__ldcg/__ldcs/__ldlu/__ldcv, __stwb/__stcg/__stcs/
 *    __stwt (sm_32_intrinsics.h, which clang's wrapper leaves out): plain loads and stores;
 *  - nvcc's atomic builtins __nv_atomic_* with the __NV_ATOMIC_* orders and __NV_THREAD_SCOPE_*
 *    scopes (crt/device_functions.h, also left out): clang's __atomic builtins;
 *  - surface reads and writes surf1D/2D/3D(read|write) (surface_indirect_functions.h): calls of the
 *    opaque __cudaperf_surface_load/store, which the memory analyses list as surface accesses. */
#ifndef CUDAPERF_NVCC_COMPAT_H
#define CUDAPERF_NVCC_COMPAT_H

#if defined(__cplusplus) && defined(__CUDA__)

/* `__shared__ alignas(N)`: lib/Frontend/SourceRewrites.cpp writes the alignas as __alnas (the same
 * length, so columns stay); clang accepts _Alignas after an attribute. */
#define __alnas _Alignas

/* `__shared__ cuda::barrier<...> b;` inside a function: SourceRewrites.cpp declares it as this
 * storage and a reference `cuda::barrier<...> &b` to it (nvcc ignores the construction of a
 * __shared__ variable, clang rejects it). */
template <class T> struct __cudaperf_uninitialized {
  alignas(T) unsigned char bytes[sizeof(T)];
  __device__ T &get() { return *reinterpret_cast<T *>(bytes); }
};

/* A kernel launch in device code (dynamic parallelism), which clang rejects: SourceRewrites.cpp
 * writes `k<<<grid, block>>>(args)` inside __global__/__device__ functions as this call, which
 * evaluates the same expressions. The child kernel is analysed on its own. */
template <class... T> static __device__ __forceinline__ void __cudaperf_device_launch(const T &...) {}

/* ---- host min/max ---------------------------------------------------------------------------- */
#define CUDAPERF_HOST_MINMAX(T)                                                                    \
  static inline __host__ T min(T a, T b) { return a < b ? a : b; }                                 \
  static inline __host__ T max(T a, T b) { return a > b ? a : b; }
CUDAPERF_HOST_MINMAX(int)
CUDAPERF_HOST_MINMAX(unsigned int)
CUDAPERF_HOST_MINMAX(long)
CUDAPERF_HOST_MINMAX(unsigned long)
CUDAPERF_HOST_MINMAX(long long)
CUDAPERF_HOST_MINMAX(unsigned long long)
CUDAPERF_HOST_MINMAX(float)
CUDAPERF_HOST_MINMAX(double)
#undef CUDAPERF_HOST_MINMAX
/* Mixed signedness, as nvcc's headers: the unsigned type wins. */
static inline __host__ unsigned int min(int a, unsigned int b) { return min((unsigned int)a, b); }
static inline __host__ unsigned int min(unsigned int a, int b) { return min(a, (unsigned int)b); }
static inline __host__ unsigned int max(int a, unsigned int b) { return max((unsigned int)a, b); }
static inline __host__ unsigned int max(unsigned int a, int b) { return max(a, (unsigned int)b); }
static inline __host__ unsigned long long min(long long a, unsigned long long b) { return min((unsigned long long)a, b); }
static inline __host__ unsigned long long min(unsigned long long a, long long b) { return min(a, (unsigned long long)b); }
static inline __host__ unsigned long long max(long long a, unsigned long long b) { return max((unsigned long long)a, b); }
static inline __host__ unsigned long long max(unsigned long long a, long long b) { return max(a, (unsigned long long)b); }
/* Mixed float/double, as nvcc's headers: double. */
static inline __host__ double min(float a, double b) { return min((double)a, b); }
static inline __host__ double min(double a, float b) { return min(a, (double)b); }
static inline __host__ double max(float a, double b) { return max((double)a, b); }
static inline __host__ double max(double a, float b) { return max(a, (double)b); }

/* ---- cache-hint loads and stores ------------------------------------------------------------- */
/* Templates, so that the toolkit's own overloads (for __half, __nv_bfloat16 ...) stay preferred.
 * clang 22's __clang_cuda_intrinsics.h defines __ldcg, __ldcs, __ldcv and __stwt itself, as inline
 * PTX (ld.global.cs.f32 ...) that the memory analyses cannot see into; clang 19 had none of them.
 * So every name is an object-like macro for cudaperf's plain load or store: the user's calls (and
 * any toolkit overload defined after this header, renamed alike) reach these, clang's stay unused. */
#define CUDAPERF_LOAD_HINT(NAME)                                                                   \
  template <class T> static __device__ __forceinline__ T __cudaperf##NAME(const T *p) { return *p; }
#define CUDAPERF_STORE_HINT(NAME)                                                                  \
  template <class T> static __device__ __forceinline__ void __cudaperf##NAME(T *p, T v) { *p = v; }
CUDAPERF_LOAD_HINT(__ldca)
CUDAPERF_LOAD_HINT(__ldcg)
CUDAPERF_LOAD_HINT(__ldcs)
CUDAPERF_LOAD_HINT(__ldlu)
CUDAPERF_LOAD_HINT(__ldcv)
CUDAPERF_STORE_HINT(__stwb)
CUDAPERF_STORE_HINT(__stcg)
CUDAPERF_STORE_HINT(__stcs)
CUDAPERF_STORE_HINT(__stwt)
#undef CUDAPERF_LOAD_HINT
#undef CUDAPERF_STORE_HINT
#define __ldca __cudaperf__ldca
#define __ldcg __cudaperf__ldcg
#define __ldcs __cudaperf__ldcs
#define __ldlu __cudaperf__ldlu
#define __ldcv __cudaperf__ldcv
#define __stwb __cudaperf__stwb
#define __stcg __cudaperf__stcg
#define __stcs __cudaperf__stcs
#define __stwt __cudaperf__stwt

/* ---- nvcc's atomic builtins ------------------------------------------------------------------ */
enum {
  __NV_ATOMIC_RELAXED,
  __NV_ATOMIC_CONSUME,
  __NV_ATOMIC_ACQUIRE,
  __NV_ATOMIC_RELEASE,
  __NV_ATOMIC_ACQ_REL,
  __NV_ATOMIC_SEQ_CST
};
enum {
  __NV_THREAD_SCOPE_THREAD,
  __NV_THREAD_SCOPE_BLOCK,
  __NV_THREAD_SCOPE_CLUSTER,
  __NV_THREAD_SCOPE_DEVICE,
  __NV_THREAD_SCOPE_SYSTEM
};
/* The orders are numbered as C11's (__ATOMIC_RELAXED 0 ... __ATOMIC_SEQ_CST 5); the scope only
 * changes which caches the hardware keeps coherent, not the memory operation. */
#define CUDAPERF_ATOMIC_FETCH(NAME, BUILTIN)                                                       \
  template <class T, class U>                                                                      \
  static __device__ __forceinline__ T NAME(T *p, U v, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) { \
    (void)scope;                                                                                   \
    return BUILTIN(p, (T)v, __ATOMIC_RELAXED);                                                     \
  }
CUDAPERF_ATOMIC_FETCH(__nv_atomic_fetch_add, __atomic_fetch_add)
CUDAPERF_ATOMIC_FETCH(__nv_atomic_fetch_sub, __atomic_fetch_sub)
CUDAPERF_ATOMIC_FETCH(__nv_atomic_fetch_and, __atomic_fetch_and)
CUDAPERF_ATOMIC_FETCH(__nv_atomic_fetch_or, __atomic_fetch_or)
CUDAPERF_ATOMIC_FETCH(__nv_atomic_fetch_xor, __atomic_fetch_xor)
CUDAPERF_ATOMIC_FETCH(__nv_atomic_fetch_min, __atomic_fetch_min)
CUDAPERF_ATOMIC_FETCH(__nv_atomic_fetch_max, __atomic_fetch_max)
CUDAPERF_ATOMIC_FETCH(__nv_atomic_exchange_n, __atomic_exchange_n)
#undef CUDAPERF_ATOMIC_FETCH
template <class T>
static __device__ __forceinline__ T __nv_atomic_load_n(const T *p, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  (void)order, (void)scope;
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
template <class T>
static __device__ __forceinline__ void __nv_atomic_load(const T *p, T *out, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  (void)order, (void)scope;
  __atomic_load(p, out, __ATOMIC_RELAXED);
}
template <class T, class U>
static __device__ __forceinline__ void __nv_atomic_store_n(T *p, U v, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  (void)order, (void)scope;
  __atomic_store_n(p, (T)v, __ATOMIC_RELAXED);
}
template <class T>
static __device__ __forceinline__ void __nv_atomic_store(T *p, T *v, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  (void)order, (void)scope;
  __atomic_store(p, v, __ATOMIC_RELAXED);
}
template <class T>
static __device__ __forceinline__ void __nv_atomic_exchange(T *p, T *v, T *old, int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  (void)order, (void)scope;
  __atomic_exchange(p, v, old, __ATOMIC_RELAXED);
}
template <class T, class U>
static __device__ __forceinline__ bool __nv_atomic_compare_exchange_n(T *p, T *expected, U desired, bool weak, int success, int failure, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  (void)weak, (void)success, (void)failure, (void)scope;
  return __atomic_compare_exchange_n(p, expected, (T)desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
template <class T>
static __device__ __forceinline__ bool __nv_atomic_compare_exchange(T *p, T *expected, T *desired, bool weak, int success, int failure, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  (void)weak, (void)success, (void)failure, (void)scope;
  return __atomic_compare_exchange(p, expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
static __device__ __forceinline__ void __nv_atomic_thread_fence(int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  (void)order, (void)scope;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* ---- surfaces -------------------------------------------------------------------------------- */
/* clang 22's CUDA wrapper includes the toolkit's surface_indirect_functions.h (clang 19 did not),
 * whose surf* templates lower to inline PTX (suld/sust) through clang's texture intrinsics and make
 * the calls below ambiguous: every name is an object-like macro for cudaperf's, as the cache hints. */
#define surf1Dread __cudaperf_surf1Dread
#define surf2Dread __cudaperf_surf2Dread
#define surf3Dread __cudaperf_surf3Dread
#define surf1DLayeredread __cudaperf_surf1DLayeredread
#define surf2DLayeredread __cudaperf_surf2DLayeredread
#define surf1Dwrite __cudaperf_surf1Dwrite
#define surf2Dwrite __cudaperf_surf2Dwrite
#define surf3Dwrite __cudaperf_surf3Dwrite
#define surf1DLayeredwrite __cudaperf_surf1DLayeredwrite
#define surf2DLayeredwrite __cudaperf_surf2DLayeredwrite
typedef unsigned long long __cudaperf_surface_t;
/* Opaque: declared, never defined; the memory analyses recognise the calls by name (one access of
 * sizeof(T) bytes, space "surface"). x is in bytes, as CUDA's surface functions take it. */
template <class T> __device__ T __cudaperf_surface_load(__cudaperf_surface_t s, int x, int y, int z);
template <class T> __device__ void __cudaperf_surface_store(T v, __cudaperf_surface_t s, int x, int y, int z);
#define CUDAPERF_SURFACE_MODE int
template <class T> static __device__ __forceinline__ void surf1Dread(T *r, __cudaperf_surface_t s, int x, CUDAPERF_SURFACE_MODE = 0) { *r = __cudaperf_surface_load<T>(s, x, 0, 0); }
template <class T> static __device__ __forceinline__ T surf1Dread(__cudaperf_surface_t s, int x, CUDAPERF_SURFACE_MODE = 0) { return __cudaperf_surface_load<T>(s, x, 0, 0); }
template <class T> static __device__ __forceinline__ void surf2Dread(T *r, __cudaperf_surface_t s, int x, int y, CUDAPERF_SURFACE_MODE = 0) { *r = __cudaperf_surface_load<T>(s, x, y, 0); }
template <class T> static __device__ __forceinline__ T surf2Dread(__cudaperf_surface_t s, int x, int y, CUDAPERF_SURFACE_MODE = 0) { return __cudaperf_surface_load<T>(s, x, y, 0); }
template <class T> static __device__ __forceinline__ void surf3Dread(T *r, __cudaperf_surface_t s, int x, int y, int z, CUDAPERF_SURFACE_MODE = 0) { *r = __cudaperf_surface_load<T>(s, x, y, z); }
template <class T> static __device__ __forceinline__ T surf3Dread(__cudaperf_surface_t s, int x, int y, int z, CUDAPERF_SURFACE_MODE = 0) { return __cudaperf_surface_load<T>(s, x, y, z); }
template <class T> static __device__ __forceinline__ void surf1DLayeredread(T *r, __cudaperf_surface_t s, int x, int layer, CUDAPERF_SURFACE_MODE = 0) { *r = __cudaperf_surface_load<T>(s, x, 0, layer); }
template <class T> static __device__ __forceinline__ T surf1DLayeredread(__cudaperf_surface_t s, int x, int layer, CUDAPERF_SURFACE_MODE = 0) { return __cudaperf_surface_load<T>(s, x, 0, layer); }
template <class T> static __device__ __forceinline__ void surf2DLayeredread(T *r, __cudaperf_surface_t s, int x, int y, int layer, CUDAPERF_SURFACE_MODE = 0) { *r = __cudaperf_surface_load<T>(s, x, y, layer); }
template <class T> static __device__ __forceinline__ T surf2DLayeredread(__cudaperf_surface_t s, int x, int y, int layer, CUDAPERF_SURFACE_MODE = 0) { return __cudaperf_surface_load<T>(s, x, y, layer); }
template <class T> static __device__ __forceinline__ void surf1Dwrite(T v, __cudaperf_surface_t s, int x, CUDAPERF_SURFACE_MODE = 0) { __cudaperf_surface_store<T>(v, s, x, 0, 0); }
template <class T> static __device__ __forceinline__ void surf2Dwrite(T v, __cudaperf_surface_t s, int x, int y, CUDAPERF_SURFACE_MODE = 0) { __cudaperf_surface_store<T>(v, s, x, y, 0); }
template <class T> static __device__ __forceinline__ void surf3Dwrite(T v, __cudaperf_surface_t s, int x, int y, int z, CUDAPERF_SURFACE_MODE = 0) { __cudaperf_surface_store<T>(v, s, x, y, z); }
template <class T> static __device__ __forceinline__ void surf1DLayeredwrite(T v, __cudaperf_surface_t s, int x, int layer, CUDAPERF_SURFACE_MODE = 0) { __cudaperf_surface_store<T>(v, s, x, 0, layer); }
template <class T> static __device__ __forceinline__ void surf2DLayeredwrite(T v, __cudaperf_surface_t s, int x, int y, int layer, CUDAPERF_SURFACE_MODE = 0) { __cudaperf_surface_store<T>(v, s, x, y, layer); }
#undef CUDAPERF_SURFACE_MODE

#endif /* __cplusplus && __CUDA__ */
#endif /* CUDAPERF_NVCC_COMPAT_H */
