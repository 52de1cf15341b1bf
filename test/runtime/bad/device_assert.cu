// cudaperf-task: vector_add
// cudaperf-expect: runtime_fault
// Fails a device-side assert.
#include <cuda_runtime.h>
#include <cassert>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(i < n / 2);
  if (i < n)
    c[i] = a[i] + b[i];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
