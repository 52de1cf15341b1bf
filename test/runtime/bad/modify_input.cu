// cudaperf-task: vector_add
// cudaperf-expect: wrong_answer
// Uses a as scratch space: right output, modified input.
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = a[i] + b[i];
    const_cast<float *>(a)[i] = v;
    c[i] = v;
  }
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
