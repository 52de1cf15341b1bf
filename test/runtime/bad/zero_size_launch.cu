// cudaperf-task: vector_add
// cudaperf-expect: launch_error
// Launches a grid of zero blocks.
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  k<<<0, 256, 0, s>>>(a, b, c, n);
}
