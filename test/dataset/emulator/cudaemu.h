// cudaemu: runs CUDA implementations on the CPU, to check generated implementations for
// correctness without a GPU (test/dataset/emulate-task.cpp). Force-included (g++ -include) before
// a candidate whose launches and dynamic shared memory declarations the runner has rewritten.
//
// Every thread of a block is a fiber (ucontext); blocks run one after another. A fiber runs
// until it reaches __syncthreads() or a warp collective (__shfl*_sync, __ballot_sync,
// __syncwarp, ...), where it waits for the others; so shared memory, barriers and shuffles
// behave as on the GPU for code without data races, and a barrier not reached by every thread
// of the block, a collective whose mask names a lane that has exited, or a deadlock is reported
// as an error. Threads run in increasing or (CUDAEMU_ORDER=reverse) decreasing order between
// barriers, so a missing barrier shows as a wrong answer in one of the two orders.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <ucontext.h>
#include <vector>

// ---- vector types -------------------------------------------------------------------------
#define CUDAEMU_VEC2(T, N, A) struct alignas(A) N##2 { T x, y; }; \
  inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define CUDAEMU_VEC4(T, N, A) struct alignas(A) N##4 { T x, y, z, w; }; \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
CUDAEMU_VEC2(float, float, 8)
CUDAEMU_VEC4(float, float, 16)
CUDAEMU_VEC2(double, double, 16)
CUDAEMU_VEC2(int, int, 8)
CUDAEMU_VEC4(int, int, 16)
CUDAEMU_VEC2(unsigned int, uint, 8)
CUDAEMU_VEC4(unsigned int, uint, 16)
CUDAEMU_VEC2(unsigned char, uchar, 2)
CUDAEMU_VEC4(unsigned char, uchar, 4)
CUDAEMU_VEC2(long long, longlong, 16)
struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

// ---- runtime API subset -------------------------------------------------------------------
typedef struct CUstream_st *cudaStream_t;
typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorInvalidConfiguration = 9,
       cudaErrorLaunchFailure = 719 };
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice,
                      cudaMemcpyDefault };
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxSharedMemoryPerBlock = 8,
                      cudaDevAttrMultiProcessorCount = 16, cudaDevAttrMaxSharedMemoryPerBlockOptin = 97 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };

namespace cudaemu {

struct Failure {
  std::string message;
  int error = cudaSuccess;
};
inline Failure &failure() {
  static Failure f;
  return f;
}
inline void fail(int error, const std::string &message) {
  if (failure().error == cudaSuccess) {
    failure().error = error;
    failure().message = message;
  }
}

struct Thread {
  uint3 idx{0, 0, 0};
  int linear = 0;
  ucontext_t context;
  std::vector<char> stack;
  bool done = false;
  bool started = false;
  long waitBarrier = -1;    // the block barrier generation it waits for, -1: not waiting
  long waitCollective = -1; // the warp collective generation it waits for
};

struct Collective {
  int arrived = 0;
  long generation = 0;
  int op = 0;
  uint64_t values[32];
  int args[32];
  unsigned masks[32];
  uint64_t results[32];
};

struct Block {
  uint3 idx{0, 0, 0};
  dim3 dim, grid;
  std::vector<Thread> threads;
  std::vector<Collective> warps;
  int live = 0;
  int arrived = 0;
  long barrierGeneration = 0;
  int barrierCount = 0; // __syncthreads_count / _or / _and accumulate here
  int barrierResult = 0;
  ucontext_t scheduler;
  std::vector<unsigned char> dynamicShared;
  bool anyExited = false;
};

inline Block *&block() {
  static Block *b = nullptr;
  return b;
}
inline Thread *&self() {
  static Thread *t = nullptr;
  return t;
}

inline void yield() { swapcontext(&self()->context, &block()->scheduler); }

inline std::function<void()> &body() {
  static std::function<void()> f;
  return f;
}

inline void threadMain() {
  body()();
  Thread *t = self();
  Block *b = block();
  t->done = true;
  --b->live;
  b->anyExited = true;
  if (b->arrived > 0)
    fail(cudaErrorLaunchFailure, "a thread exited while others wait at __syncthreads() (divergent barrier)");
  Collective &w = b->warps[size_t(t->linear / 32)];
  if (w.arrived > 0)
    fail(cudaErrorLaunchFailure, "a lane exited while its warp waits in a collective (__shfl/__ballot/__syncwarp)");
  swapcontext(&t->context, &b->scheduler);
}

inline bool reverseOrder() {
  const char *o = std::getenv("CUDAEMU_ORDER");
  return o && std::strcmp(o, "reverse") == 0;
}

inline unsigned char *&dynamicSharedPointer() {
  static unsigned char *p = nullptr;
  return p;
}
inline void *dynamicShared() { return dynamicSharedPointer(); }

inline void runBlock(Block &b) {
  int n = int(b.dim.x * b.dim.y * b.dim.z);
  b.threads.resize(size_t(n));
  b.warps.assign(size_t((n + 31) / 32), Collective{});
  b.live = n;
  b.arrived = 0;
  b.anyExited = false;
  for (int i = 0; i < n; ++i) {
    Thread &t = b.threads[size_t(i)];
    t.linear = i;
    t.idx = uint3{unsigned(i) % b.dim.x, unsigned(i) / b.dim.x % b.dim.y, unsigned(i) / (b.dim.x * b.dim.y)};
    t.done = t.started = false;
    t.waitBarrier = t.waitCollective = -1;
    if (t.stack.empty())
      t.stack.resize(64 * 1024);
    getcontext(&t.context);
    t.context.uc_stack.ss_sp = t.stack.data();
    t.context.uc_stack.ss_size = t.stack.size();
    t.context.uc_link = nullptr;
    makecontext(&t.context, (void (*)())threadMain, 0);
  }
  bool reverse = reverseOrder();
  while (b.live > 0 && failure().error == cudaSuccess) {
    bool progressed = false;
    for (int k = 0; k < n; ++k) {
      Thread &t = b.threads[size_t(reverse ? n - 1 - k : k)];
      if (t.done)
        continue;
      if (t.waitBarrier >= 0 && t.waitBarrier == b.barrierGeneration)
        continue;
      if (t.waitCollective >= 0 && t.waitCollective == b.warps[size_t(t.linear / 32)].generation)
        continue;
      t.waitBarrier = t.waitCollective = -1;
      self() = &t;
      swapcontext(&b.scheduler, &t.context);
      progressed = true;
      if (failure().error != cudaSuccess)
        return;
    }
    if (!progressed) {
      fail(cudaErrorLaunchFailure, "deadlock: every live thread waits at a barrier or collective that cannot complete");
      return;
    }
  }
}

struct LaunchConfig {
  dim3 grid, blockDim;
  size_t sharedBytes;
  LaunchConfig(dim3 g, dim3 b, size_t s = 0, cudaStream_t = nullptr) : grid(g), blockDim(b), sharedBytes(s) {}
};

inline size_t &dynamicSharedLimit() {
  static size_t limit = 48 * 1024;
  return limit;
}

inline void runGrid(const LaunchConfig &c, const std::function<void()> &kernel) {
  unsigned threads = c.blockDim.x * c.blockDim.y * c.blockDim.z;
  if (c.grid.x == 0 || c.grid.y == 0 || c.grid.z == 0 || threads == 0 || threads > 1024 || c.blockDim.z > 64 ||
      c.grid.y > 65535 || c.grid.z > 65535 || c.grid.x > 2147483647u) {
    fail(cudaErrorInvalidConfiguration, "invalid launch configuration: grid (" + std::to_string(c.grid.x) + "," +
         std::to_string(c.grid.y) + "," + std::to_string(c.grid.z) + ") block (" + std::to_string(c.blockDim.x) +
         "," + std::to_string(c.blockDim.y) + "," + std::to_string(c.blockDim.z) + ")");
    return;
  }
  if (c.sharedBytes > dynamicSharedLimit()) {
    fail(cudaErrorInvalidValue, "dynamic shared memory " + std::to_string(c.sharedBytes) +
         " bytes exceeds the limit (48 KiB unless raised with cudaFuncSetAttribute)");
    return;
  }
  if (failure().error != cudaSuccess)
    return;
  static Block b;
  b.dim = c.blockDim;
  b.grid = c.grid;
  b.dynamicShared.assign(c.sharedBytes + 16, 0xFF);
  dynamicSharedPointer() = b.dynamicShared.data();
  body() = kernel;
  block() = &b;
  for (unsigned z = 0; z < c.grid.z; ++z)
    for (unsigned y = 0; y < c.grid.y; ++y)
      for (unsigned x = 0; x < c.grid.x; ++x) {
        b.idx = uint3{x, y, z};
        std::fill(b.dynamicShared.begin(), b.dynamicShared.end(), 0xFF);
        runBlock(b);
        if (failure().error != cudaSuccess)
          return;
      }
  block() = nullptr;
}

template <class... P, class... A> void launch(const LaunchConfig &c, void (*kernel)(P...), A &&...args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong number of arguments");
  std::tuple<std::decay_t<P>...> params(static_cast<std::decay_t<P>>(args)...);
  runGrid(c, [&] { std::apply(kernel, params); });
}

// Block barrier: returns once every live thread of the block arrived.
inline void barrier(int contribution) {
  Block *b = block();
  if (b->anyExited)
    fail(cudaErrorLaunchFailure, "__syncthreads() after a thread of the block exited (divergent barrier)");
  if (b->arrived == 0) {
    b->barrierCount = 0;
  }
  b->barrierCount += contribution;
  long gen = b->barrierGeneration;
  if (++b->arrived == b->live) {
    b->arrived = 0;
    b->barrierResult = b->barrierCount;
    ++b->barrierGeneration;
    return;
  }
  self()->waitBarrier = gen;
  yield();
}

enum CollectiveOp { OpSync = 1, OpShfl, OpShflUp, OpShflDown, OpShflXor, OpBallot, OpAny, OpAll };

inline uint64_t collective(int op, unsigned mask, uint64_t value, int arg, int width) {
  Block *b = block();
  Thread *t = self();
  int warp = t->linear / 32, lane = t->linear % 32;
  Collective &w = b->warps[size_t(warp)];
  int warpSize = std::min(32, int(b->threads.size()) - warp * 32);
  unsigned liveMask = 0;
  for (int l = 0; l < warpSize; ++l)
    if (!b->threads[size_t(warp * 32 + l)].done)
      liveMask |= 1u << l;
  if ((mask & ~liveMask) != 0) {
    fail(cudaErrorLaunchFailure, "a warp collective's mask names lanes that do not exist or have exited");
    return 0;
  }
  if (!(mask >> lane & 1u)) {
    fail(cudaErrorLaunchFailure, "a lane called a warp collective whose mask does not include it");
    return 0;
  }
  if (w.arrived > 0 && w.op != op) {
    fail(cudaErrorLaunchFailure, "lanes of one warp are in different collectives (divergent)");
    return 0;
  }
  w.op = op;
  w.values[lane] = value;
  w.args[lane] = arg;
  w.masks[lane] = mask;
  int expected = __builtin_popcount(mask);
  long gen = w.generation;
  if (++w.arrived == expected) {
    unsigned ballot = 0;
    for (int l = 0; l < 32; ++l)
      if ((mask >> l & 1u) && w.values[l])
        ballot |= 1u << l;
    for (int l = 0; l < 32; ++l) {
      if (!(mask >> l & 1u))
        continue;
      int segment = l / width * width, src = l;
      switch (op) {
      case OpShfl: src = segment + (w.args[l] % width + width) % width; break;
      case OpShflUp: src = l - w.args[l] >= segment ? l - w.args[l] : l; break;
      case OpShflDown: src = l + w.args[l] < segment + width ? l + w.args[l] : l; break;
      case OpShflXor: src = (l ^ w.args[l]) < segment + width && (l ^ w.args[l]) >= segment ? (l ^ w.args[l]) : l; break;
      default: break;
      }
      if (op >= OpShfl && op <= OpShflXor && !(mask >> src & 1u))
        fail(cudaErrorLaunchFailure, "a shuffle reads a lane outside its mask");
      w.results[l] = op == OpBallot ? ballot : op == OpAny ? ballot != 0 : op == OpAll ? ballot == mask
                     : w.values[src];
    }
    w.arrived = 0;
    ++w.generation;
    return w.results[lane];
  }
  t->waitCollective = gen;
  yield();
  return w.results[lane];
}

template <class T> uint64_t bits(T v) {
  static_assert(sizeof(T) <= 8, "shuffle of a type wider than 8 bytes");
  uint64_t u = 0;
  std::memcpy(&u, &v, sizeof v);
  return u;
}
template <class T> T fromBits(uint64_t u) {
  T v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

inline int &lastError() {
  static int e = cudaSuccess;
  return e;
}

} // namespace cudaemu

extern "C" __attribute__((visibility("default"))) const char *cudaemu_failure() {
  return cudaemu::failure().error == cudaSuccess ? nullptr : cudaemu::failure().message.c_str();
}
extern "C" __attribute__((visibility("default"))) void cudaemu_reset() {
  cudaemu::failure() = cudaemu::Failure{};
  cudaemu::dynamicSharedLimit() = 48 * 1024;
}

// ---- built-in variables and qualifiers ------------------------------------------------------
#define threadIdx (::cudaemu::self()->idx)
#define blockIdx (::cudaemu::block()->idx)
#define blockDim (::cudaemu::block()->dim)
#define gridDim (::cudaemu::block()->grid)
#define warpSize 32
#define __global__
#define __device__
#define __host__
#define __constant__
#define __shared__ static
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

inline void __syncthreads() { cudaemu::barrier(0); }
inline int __syncthreads_count(int p) { cudaemu::barrier(p != 0); return cudaemu::block()->barrierResult; }
inline int __syncthreads_or(int p) { return __syncthreads_count(p) != 0; }
inline int __syncthreads_and(int p) {
  return __syncthreads_count(p) == cudaemu::block()->live;
}
inline void __syncwarp(unsigned mask = 0xffffffffu) { cudaemu::collective(cudaemu::OpSync, mask, 0, 0, 32); }
inline void __threadfence() {}
inline void __threadfence_block() {}
template <class T> T __shfl_sync(unsigned m, T v, int src, int width = 32) {
  return cudaemu::fromBits<T>(cudaemu::collective(cudaemu::OpShfl, m, cudaemu::bits(v), src, width));
}
template <class T> T __shfl_up_sync(unsigned m, T v, unsigned d, int width = 32) {
  return cudaemu::fromBits<T>(cudaemu::collective(cudaemu::OpShflUp, m, cudaemu::bits(v), int(d), width));
}
template <class T> T __shfl_down_sync(unsigned m, T v, unsigned d, int width = 32) {
  return cudaemu::fromBits<T>(cudaemu::collective(cudaemu::OpShflDown, m, cudaemu::bits(v), int(d), width));
}
template <class T> T __shfl_xor_sync(unsigned m, T v, int lm, int width = 32) {
  return cudaemu::fromBits<T>(cudaemu::collective(cudaemu::OpShflXor, m, cudaemu::bits(v), lm, width));
}
inline unsigned __ballot_sync(unsigned m, int p) { return unsigned(cudaemu::collective(cudaemu::OpBallot, m, p != 0, 0, 32)); }
inline int __any_sync(unsigned m, int p) { return int(cudaemu::collective(cudaemu::OpAny, m, p != 0, 0, 32)); }
inline int __all_sync(unsigned m, int p) { return int(cudaemu::collective(cudaemu::OpAll, m, p != 0, 0, 32)); }
inline unsigned __activemask() {
  unsigned m = 0;
  cudaemu::Block *b = cudaemu::block();
  int warp = cudaemu::self()->linear / 32;
  for (int l = 0; l < 32 && warp * 32 + l < int(b->threads.size()); ++l)
    if (!b->threads[size_t(warp * 32 + l)].done) m |= 1u << l;
  return m;
}

// ---- atomics (fibers switch only at barriers, so plain read-modify-writes are atomic) --------
template <class T> T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }
template <class T> T atomicSub(T *p, T v) { T o = *p; *p = o - v; return o; }
template <class T> T atomicMax(T *p, T v) { T o = *p; *p = o > v ? o : v; return o; }
template <class T> T atomicMin(T *p, T v) { T o = *p; *p = o < v ? o : v; return o; }
template <class T> T atomicExch(T *p, T v) { T o = *p; *p = v; return o; }
template <class T> T atomicCAS(T *p, T c, T v) { T o = *p; if (o == c) *p = v; return o; }
template <class T> T atomicAnd(T *p, T v) { T o = *p; *p = o & v; return o; }
template <class T> T atomicOr(T *p, T v) { T o = *p; *p = o | v; return o; }
template <class T> T atomicXor(T *p, T v) { T o = *p; *p = o ^ v; return o; }
inline unsigned atomicInc(unsigned *p, unsigned v) { unsigned o = *p; *p = o >= v ? 0 : o + 1; return o; }

// ---- device math and intrinsics --------------------------------------------------------------
using std::max;
using std::min;
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __saturatef(float x) { return x < 0 ? 0.0f : x > 1 ? 1.0f : x; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline int __float2int_rn(float x) { return int(nearbyintf(x)); }
inline int __float2int_rz(float x) { return int(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= (x >> i & 1u) << (31 - i);
  return r;
}
inline float normcdff(float x) { return 0.5f * erfcf(-x / sqrtf(2.0f)); }
template <class T> T __ldg(const T *p) { return *p; }

// ---- host runtime functions -----------------------------------------------------------------
inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int) {
  switch (a) {
  case cudaDevAttrMultiProcessorCount: *v = 132; break;
  case cudaDevAttrMaxThreadsPerBlock: *v = 1024; break;
  case cudaDevAttrMaxSharedMemoryPerBlock: *v = 48 * 1024; break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = 232448; break;
  default: *v = 0; return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}
inline cudaError_t cudaMalloc(void **p, size_t bytes) {
  *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (*p) std::memset(*p, 0xA5, bytes);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T> cudaError_t cudaMalloc(T **p, size_t bytes) { return cudaMalloc((void **)p, bytes); }
inline cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t) { return cudaMalloc(p, bytes); }
template <class T> cudaError_t cudaMallocAsync(T **p, size_t bytes, cudaStream_t s) { return cudaMallocAsync((void **)p, bytes, s); }
inline cudaError_t cudaFree(void *p) { std::free(p); return cudaSuccess; }
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t) { std::free(p); return cudaSuccess; }
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t bytes, cudaStream_t = nullptr) {
  std::memset(p, v, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void *p, int v, size_t bytes) { return cudaMemsetAsync(p, v, bytes); }
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t bytes, cudaMemcpyKind, cudaStream_t = nullptr) {
  std::memmove(d, s, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t bytes, cudaMemcpyKind k) { return cudaMemcpyAsync(d, s, bytes, k); }
template <class T> cudaError_t cudaMemcpyToSymbolAsync(T &symbol, const void *src, size_t bytes, size_t offset = 0,
                                                       cudaMemcpyKind = cudaMemcpyHostToDevice, cudaStream_t = nullptr) {
  std::memcpy((char *)&symbol + offset, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaGetLastError() {
  int e = cudaemu::failure().error;
  return e;
}
inline cudaError_t cudaPeekAtLastError() { return cudaemu::failure().error; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
template <class F> cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute a, int v) {
  if (a == cudaFuncAttributeMaxDynamicSharedMemorySize) cudaemu::dynamicSharedLimit() = size_t(v);
  return cudaSuccess;
}
inline const char *cudaGetErrorString(cudaError_t) { return "cudaemu error"; }
