// cudaperf-task: reduce_sum
// cudaperf-class: honest
// cudaperf-source: technique: persistent single-pass reduction, last block finishes (threadfence + counter)
// cudaperf-expect: ok
// One wave of blocks; each writes its partial to scratch, then takes a ticket from a counter; the block
// that draws the last ticket sums the partials, writes the output and resets the counter for the
// next call. No memset of the output, one launch.
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

__global__ void reduceLastBlock(const float *in, int n, float *part, unsigned *ticket, float *out) {
  __shared__ bool last;
  float v = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    v += in[i];
  v = blockSum(v);
  if (threadIdx.x == 0) {
    part[blockIdx.x] = v;
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last)
    return;
  __threadfence();
  float s = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += blockDim.x)
    s += ((volatile float *)part)[i];
  s = blockSum(s);
  if (threadIdx.x == 0) {
    *out = s;
    *ticket = 0;
  }
}

extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t stream) {
  static float *part = nullptr;
  static unsigned *ticket = nullptr;
  if (!part) {
    cudaMalloc(&part, 1024 * sizeof(float));
    cudaMalloc(&ticket, sizeof(unsigned));
    cudaMemsetAsync(ticket, 0, sizeof(unsigned), stream);
  }
  int blocks = (n + 2047) / 2048;
  blocks = blocks < 1 ? 1 : (blocks < 264 ? blocks : 264);
  reduceLastBlock<<<blocks, 256, 0, stream>>>(in, n, part, ticket, out);
}
