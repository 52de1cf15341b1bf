// cudaperf-task: vector_add
// cudaperf-expect: ok
// Correct: a stream-ordered scratch buffer, allocated and freed on the stream in every call
// (the default pool releases it; nothing is kept).
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, float *scratch, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    scratch[i] = a[i] * 2.0f;
    c[i] = scratch[i] * 0.5f + b[i];
  }
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  float *scratch = nullptr;
  cudaMallocAsync(reinterpret_cast<void **>(&scratch), size_t(n) * sizeof(float), s);
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, scratch, n);
  cudaFreeAsync(scratch, s);
}
