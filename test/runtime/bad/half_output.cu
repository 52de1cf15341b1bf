// cudaperf-task: vector_add
// cudaperf-expect: wrong_answer
// Writes only the first half of the output; the rest stays poisoned (NaN).
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 2)
    c[i] = a[i] + b[i];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
