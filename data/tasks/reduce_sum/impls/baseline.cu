// Every element added to the result with a global atomic: correct, but all atomics serialize
// on one address.
#include <cuda_runtime.h>

__global__ void reduceAtomic(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, in[i]);
}

extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t stream) {
  cudaMemsetAsync(out, 0, sizeof(float), stream);
  reduceAtomic<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);
}
