// cudaperf-task: vector_add
// cudaperf-expect: timeout
// Never terminates.
#include <cuda_runtime.h>
__global__ void k(float *c, int n) {
  volatile int spin = 1;
  while (spin) {
  }
  c[0] = n;
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  k<<<1, 32, 0, s>>>(c, n);
}
