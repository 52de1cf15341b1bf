// cudaperf-task: vector_add
// cudaperf-expect: runtime_fault
// Frees its 1.5 GiB scratch with cudaFreeAsync every call, but into a default pool told to keep
// everything (release threshold: all): the pool's reserve stays, and it is the candidate's.
#include <cstdint>
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, float *scratch, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    scratch[i] = a[i];
    c[i] = scratch[i] + b[i];
  }
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, 0);
  uint64_t keepAll = UINT64_MAX;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll);
  float *scratch = nullptr;
  cudaMallocAsync(reinterpret_cast<void **>(&scratch), size_t(3) << 29, s);
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, scratch, n);
  cudaFreeAsync(scratch, s);
}
