// cudaperf-task: vector_add
// cudaperf-expect: timing_violation
// Launches on the legacy default stream, ignoring the stream argument.
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  k<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
