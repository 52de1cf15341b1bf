// cudaperf-task: vector_add
// cudaperf-class: sampled-elements-only
// cudaperf-source: issue 33 item 4 (outputs of a sample checked); GPU MODE reference-kernels (checkers that sample)
// cudaperf-expect: wrong_answer
// Writes only the elements a sampling checker would likely look at (the first and last 1024 and every
// 97th) and zeros the rest with a memset. The evaluator compares every element.
#include <cuda_runtime.h>

__global__ void addSampled(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (i < 1024 || i >= n - 1024 || i % 97 == 0))
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  cudaMemsetAsync(c, 0, n * sizeof(float), stream);
  addSampled<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
