// cudaperf-task: vector_add
// cudaperf-expect: wrong_answer
// Computes on the first call for a given output buffer, then replays the saved result.
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
static float *saved = nullptr;
static const float *savedFor = nullptr;
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  if (savedFor == c) {
    cudaMemcpyAsync(c, saved, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
    return;
  }
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
  if (saved)
    cudaFree(saved);
  cudaMalloc(&saved, n * sizeof(float));
  cudaMemcpyAsync(saved, c, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
  savedFor = c;
}
