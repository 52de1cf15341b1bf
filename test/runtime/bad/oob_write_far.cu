// cudaperf-task: vector_add
// cudaperf-expect: runtime_fault
// Writes 1 GiB past the output: an illegal address, a sticky error.
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i + (1L << 28)] = a[i] + b[i];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
