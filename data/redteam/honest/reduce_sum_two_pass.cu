// cudaperf-task: reduce_sum
// cudaperf-class: honest
// cudaperf-source: technique: two-pass reduction through a scratch array (no atomics, deterministic)
// cudaperf-expect: ok
// Pass 1: each of up to 512 blocks writes its partial sum to scratch; pass 2: one block sums the
// partials and writes the output (no memset needed). The scratch buffer is allocated once.
#include <cuda_runtime.h>

__device__ float warpSum(float v) {
  for (int o = 16; o; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__device__ float blockSum(float v) {
  __shared__ float warps[32];
  v = warpSum(v);
  if ((threadIdx.x & 31) == 0)
    warps[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? warps[threadIdx.x] : 0.f;
  return threadIdx.x < 32 ? warpSum(v) : 0.f;
}

__global__ void partials(const float *in, float *part, int n) {
  float v = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    v += in[i];
  v = blockSum(v);
  if (threadIdx.x == 0)
    part[blockIdx.x] = v;
}

__global__ void finish(const float *part, int count, float *out) {
  float v = 0;
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    v += part[i];
  v = blockSum(v);
  if (threadIdx.x == 0)
    *out = v;
}

extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t stream) {
  static float *part = nullptr;
  if (!part)
    cudaMalloc(&part, 512 * sizeof(float));
  int blocks = (n + 2047) / 2048;
  blocks = blocks < 1 ? 1 : (blocks < 512 ? blocks : 512);
  partials<<<blocks, 256, 0, stream>>>(in, part, n);
  finish<<<1, 512, 0, stream>>>(part, blocks, out);
}
