// cudaperf-task: vector_add
// cudaperf-expect: runtime_fault
// Allocates device memory in 1 GiB pieces until it runs out, and keeps it.
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  void *p;
  while (cudaMalloc(&p, size_t(1) << 30) == cudaSuccess) {
  }
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
