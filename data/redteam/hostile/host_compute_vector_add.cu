// cudaperf-task: vector_add
// cudaperf-class: host-compute
// cudaperf-source: CUDA-L1 defence table; test/runtime/bad/cpu_compute.cu
// cudaperf-expect: timing_violation
// Copies the inputs to pinned host memory, adds on the CPU, copies the answer back with synchronous
// copies: the timed stream sees none of it.
#include <cuda_runtime.h>

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static float *h = nullptr;
  static int cap = 0;
  if (cap < n) {
    cudaFreeHost(h);
    cudaMallocHost(&h, 3 * sizeof(float) * n);
    cap = n;
  }
  cudaMemcpy(h, a, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(h + n, b, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    h[2 * n + i] = h[i] + h[n + i];
  cudaMemcpy(c, h + 2 * n, n * sizeof(float), cudaMemcpyHostToDevice);
}
