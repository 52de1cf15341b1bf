// Constructs nvcc 13 accepts that clang 19's CUDA mode rejected (issue 14). Used by
// nvcc-constructs.cu (built-in headers) and nvcc-constructs-sdk.test (the toolkit's).
#include <cuda.h>
#include <cuda_runtime.h>
#include <omp.h>
#include <cstdio>

// nvcc's macros, consistent with the CUDA version.
#ifndef __NVCC__
#error "__NVCC__ is not defined"
#endif
static_assert(__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10 == CUDA_VERSION,
              "__CUDACC_VER_* disagree with CUDA_VERSION");
#ifndef __CUDA_ARCH_LIST__
#error "__CUDA_ARCH_LIST__ is not defined"
#endif
#ifdef __CUDA_ARCH__
static_assert(__CUDA_ARCH__ == __CUDA_ARCH_LIST__, "one architecture: the list is __CUDA_ARCH__");
#endif

// Cache-hint loads and stores, and __ldg.
__global__ void hints(const float *in, float *out, const float4 *in4, float4 *out4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __stcs(out + i, __ldcs(in + i));
  __stwt(out + 2 * i, __ldg(in + 2 * i));
  __stcg(out4 + i, __ldcg(in4 + i));
  __stwb(out + 3 * i, __ldca(in + 3 * i) + __ldlu(in + 4 * i) + __ldcv(in + 5 * i));
}

// nvcc's atomic builtins and the scoped atomics.
__global__ void atomics(unsigned *counter, int *flags) {
  unsigned seen = __nv_atomic_load_n(counter, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_add(counter, 1u, __NV_ATOMIC_RELAXED);
  atomicAdd_block(flags + threadIdx.x, (int)seen);
  atomicAdd_system(flags, 1);
}

// Surfaces and textures.
__global__ void surfaces(cudaSurfaceObject_t s, cudaTextureObject_t t, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  float v = tex1Dfetch<float>(t, x);
  surf1Dwrite(v, s, x * 4);
  surf2Dwrite(v, s, x * 4, blockIdx.y);
  surf3Dwrite(v, s, x * 4, blockIdx.y, 0);
  out[x] = surf2Dread<float>(s, x * 4, blockIdx.y);
}

// __shared__ alignas(N), as cuda-samples' globalToShmemAsyncCopy writes it.
__global__ void aligned(float *out) {
  __shared__ alignas(16) float tile[256];
  tile[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[255 - threadIdx.x];
}

// Inline PTX as nvcc takes it: a special register with one '%', operands without a comma.
__global__ void inlinePtx(unsigned long long *times, unsigned char *flags) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  times[threadIdx.x] = t;
  unsigned v = 1;
  asm volatile("st.relaxed.gpu.global.u8 [%1], %0;" ::"r"(v) "l"(flags + threadIdx.x) : "memory");
}

// __mul24/__umul24 in index arithmetic are modelled: coalesced, not unknown.
__global__ void mul24(float *p, int n) {
  int i = __mul24(blockIdx.x, blockDim.x) + threadIdx.x;
  if (i < n)
    p[i] = 2.0f * p[i];
  unsigned j = __umul24(blockIdx.x, 256u) + threadIdx.x;
  p[j + n] = 0.0f;
}

// Dynamic parallelism (nvcc needs -rdc=true): a launch in device code (not modelled; the host
// launch of the same kernel stays a launch site).
__global__ void child(float *p, int n) { p[threadIdx.x] = n; }
__global__ void parent(float *p) {
  if (threadIdx.x == 0)
    child<<<4, 64>>>(p + 1, 7);
  p[threadIdx.x] += 1.0f;
}

int main() {
  child<<<2, 128>>>(nullptr, 1);
  register int n = 1 << 20; // `register` in C++17
  int a = max(n, 4), b = min(n, 4);
  unsigned u = max(3u, 4u);
  long long l = min(3ll, 4ll);
  float f = max(1.0f, 2.0f);
  double d = min(1.0, 2.0f);
  int narrowed[2] = {0.0, f}; // narrowing in a braced initializer (nvcc warns)
  (void)narrowed;
#pragma omp parallel for
  for (int i = 0; i < 4; ++i)
    printf("%d %d %d %u %lld %f %f\n", omp_get_thread_num(), a, b, u, l, f, d);
  return 0;
}
