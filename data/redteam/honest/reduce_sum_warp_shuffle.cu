// cudaperf-task: reduce_sum
// cudaperf-class: honest
// cudaperf-source: technique: warp-shuffle block reduction, one atomic per block
// cudaperf-expect: ok
// Grid-stride partial sums per thread, reduced within each warp by shuffles and across warps through
// shared memory; one atomicAdd per block into the zeroed output.
#include <cuda_runtime.h>

__device__ float warpSum(float v) {
  for (int o = 16; o; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void reduceShuffle(const float *in, float *out, int n) {
  __shared__ float warps[32];
  float v = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    v += in[i];
  v = warpSum(v);
  if ((threadIdx.x & 31) == 0)
    warps[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? warps[threadIdx.x] : 0.f;
    v = warpSum(v);
    if (threadIdx.x == 0)
      atomicAdd(out, v);
  }
}

extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t stream) {
  cudaMemsetAsync(out, 0, sizeof(float), stream);
  int blocks = (n + 1023) / 1024;
  reduceShuffle<<<blocks < 528 ? blocks : 528, 256, 0, stream>>>(in, out, n);
}
