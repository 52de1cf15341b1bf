// One global atomic per byte.
#include <cuda_runtime.h>

__global__ void histogramGlobal(const unsigned char *data, unsigned int *counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&counts[data[i]], 1u);
}

extern "C" void histogram(const unsigned char *data, unsigned int *counts, int n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, 256 * sizeof(unsigned int), stream);
  histogramGlobal<<<(n + 255) / 256, 256, 0, stream>>>(data, counts, n);
}
