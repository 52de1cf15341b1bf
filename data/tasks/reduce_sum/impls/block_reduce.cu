// Grid-stride partial sums per thread, a warp-shuffle then shared-memory reduction per block,
// and one atomic per block.
#include <cuda_runtime.h>

__inline__ __device__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduceBlocks(const float *__restrict__ in, float *out, int n) {
  __shared__ float warpSums[32];
  float s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += in[i];
  s = warpSum(s);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    warpSums[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < blockDim.x / 32 ? warpSums[lane] : 0.0f;
    s = warpSum(s);
    if (lane == 0)
      atomicAdd(out, s);
  }
}

extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t stream) {
  cudaMemsetAsync(out, 0, sizeof(float), stream);
  int block = 512;
  int blocks = (n + block - 1) / block;
  if (blocks > 132 * 4)
    blocks = 132 * 4;
  reduceBlocks<<<blocks, block, 0, stream>>>(in, out, n);
}
