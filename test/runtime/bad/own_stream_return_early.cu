// cudaperf-task: vector_add
// cudaperf-expect: timing_violation
// Launches on a stream of its own and returns at once: the timed stream sees nothing.
#include <cuda_runtime.h>
__global__ void slowAdd(const float *a, const float *b, float *c, int n) {
  long long start = clock64();
  while (clock64() - start < 2000000) { // ~1 ms at 2 GHz
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  static cudaStream_t own = nullptr;
  if (!own)
    cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
  slowAdd<<<132, 256, 0, own>>>(a, b, c, n);
}
