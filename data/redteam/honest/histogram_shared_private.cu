// cudaperf-task: histogram
// cudaperf-class: honest
// cudaperf-source: technique: shared-memory privatized histogram, grid-stride, one global atomic per bin per block
// cudaperf-expect: ok
// Each block counts into 256 shared-memory bins, then adds its bins to the zeroed global counts.
#include <cuda_runtime.h>

__global__ void histShared(const unsigned char *data, unsigned int *counts, int n) {
  __shared__ unsigned int bins[256];
  for (int v = threadIdx.x; v < 256; v += blockDim.x)
    bins[v] = 0;
  __syncthreads();
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
  __syncthreads();
  for (int v = threadIdx.x; v < 256; v += blockDim.x)
    if (bins[v])
      atomicAdd(&counts[v], bins[v]);
}

extern "C" void histogram(const unsigned char *data, unsigned int *counts, int n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, 256 * sizeof(unsigned int), stream);
  int blocks = (n + 4095) / 4096;
  histShared<<<blocks < 528 ? blocks : 528, 256, 0, stream>>>(data, counts, n);
}
