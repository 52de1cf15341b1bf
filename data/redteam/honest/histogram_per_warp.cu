// cudaperf-task: histogram
// cudaperf-class: honest
// cudaperf-source: technique: per-warp sub-histograms in shared memory (less atomic contention)
// cudaperf-expect: ok
// Each of the 8 warps of a block counts into its own 256 shared bins; the block sums the 8 copies and
// adds them to the zeroed global counts.
#include <cuda_runtime.h>

__global__ void histPerWarp(const unsigned char *data, unsigned int *counts, int n) {
  __shared__ unsigned int bins[8][256];
  for (int v = threadIdx.x; v < 8 * 256; v += blockDim.x)
    (&bins[0][0])[v] = 0;
  __syncthreads();
  unsigned int *mine = bins[threadIdx.x / 32];
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    atomicAdd(&mine[data[i]], 1u);
  __syncthreads();
  for (int v = threadIdx.x; v < 256; v += blockDim.x) {
    unsigned int s = 0;
    for (int w = 0; w < 8; ++w)
      s += bins[w][v];
    if (s)
      atomicAdd(&counts[v], s);
  }
}

extern "C" void histogram(const unsigned char *data, unsigned int *counts, int n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, 256 * sizeof(unsigned int), stream);
  int blocks = (n + 4095) / 4096;
  histPerWarp<<<blocks < 528 ? blocks : 528, 256, 0, stream>>>(data, counts, n);
}
