// cudaperf-task: vector_add
// cudaperf-class: default-stream
// cudaperf-source: CUDA-L1 defence table (work on the default stream); test/runtime/bad/default_stream.cu
// cudaperf-expect: timing_violation,wrong_answer
// Launches on cudaStreamPerThread, which neither waits for nor is waited on by the non-blocking
// timed stream.
#include <cuda_runtime.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  add<<<(n + 255) / 256, 256, 0, cudaStreamPerThread>>>(a, b, c, n);
}
