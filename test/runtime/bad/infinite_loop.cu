// cudaperf-task: vector_add
// cudaperf-expect: timeout
// Never terminates: spins on a volatile load of its own (NaN-poisoned) output, which no one
// changes. (A spin on a local variable is removed by ptxas as a loop without side effects.)
#include <cuda_runtime.h>
__global__ void k(float *c, int n) {
  volatile float *flag = c;
  while (flag[0] != 12345.0f) {
  }
  c[0] = n;
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  k<<<1, 32, 0, s>>>(c, n);
}
