// cudaperf-task: reduce_sum
// cudaperf-class: honest
// cudaperf-source: technique: float4 loads with warp-shuffle reduction
// cudaperf-expect: ok
// Reads the aligned bulk as float4 (four sums per load), the tail by one block, and reduces with
// shuffles; one atomic per warp into the zeroed output.
#include <cstdint>
#include <cuda_runtime.h>

__device__ float warpSum(float v) {
  for (int o = 16; o; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void reduceVec4(const float4 *in4, int n4, const float *in, int n, float *out) {
  float v = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
    float4 q = in4[i];
    v += (q.x + q.y) + (q.z + q.w);
  }
  if (blockIdx.x == 0)
    for (long i = 4L * n4 + threadIdx.x; i < n; i += blockDim.x)
      v += in[i];
  v = warpSum(v);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, v);
}

extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t stream) {
  cudaMemsetAsync(out, 0, sizeof(float), stream);
  int n4 = (reinterpret_cast<uintptr_t>(in) & 15) == 0 ? n / 4 : 0;
  int blocks = (n4 + 1023) / 1024;
  blocks = blocks < 1 ? 1 : (blocks < 264 ? blocks : 264);
  reduceVec4<<<blocks, 256, 0, stream>>>(reinterpret_cast<const float4 *>(in), n4, in, n, out);
}
