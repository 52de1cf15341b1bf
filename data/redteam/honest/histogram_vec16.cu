// cudaperf-task: histogram
// cudaperf-class: honest
// cudaperf-source: technique: 16-byte vectorized loads (uint4) into a shared-memory histogram
// cudaperf-expect: ok
// Reads 16 bytes per load over the aligned bulk, counting each byte into shared bins; the tail bytes
// are counted by block 0 one at a time.
#include <cstdint>
#include <cuda_runtime.h>

__global__ void histVec16(const unsigned char *data, int n, int n16, unsigned int *counts) {
  __shared__ unsigned int bins[256];
  for (int v = threadIdx.x; v < 256; v += blockDim.x)
    bins[v] = 0;
  __syncthreads();
  const uint4 *d16 = reinterpret_cast<const uint4 *>(data);
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n16; i += (long)gridDim.x * blockDim.x) {
    uint4 q = d16[i];
    unsigned int words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int w = 0; w < 4; ++w)
#pragma unroll
      for (int b = 0; b < 4; ++b)
        atomicAdd(&bins[(words[w] >> (8 * b)) & 0xff], 1u);
  }
  if (blockIdx.x == 0)
    for (long i = 16L * n16 + threadIdx.x; i < n; i += blockDim.x)
      atomicAdd(&bins[data[i]], 1u);
  __syncthreads();
  for (int v = threadIdx.x; v < 256; v += blockDim.x)
    if (bins[v])
      atomicAdd(&counts[v], bins[v]);
}

extern "C" void histogram(const unsigned char *data, unsigned int *counts, int n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, 256 * sizeof(unsigned int), stream);
  int n16 = (reinterpret_cast<uintptr_t>(data) & 15) == 0 ? n / 16 : 0;
  int blocks = (n16 + 1023) / 1024;
  blocks = blocks < 1 ? 1 : (blocks < 528 ? blocks : 528);
  histVec16<<<blocks, 256, 0, stream>>>(data, n, n16, counts);
}
