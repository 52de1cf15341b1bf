// One 256-thread block per row: coalesced strided passes, block-wide max and sum through warp
// shuffles and a 32-entry shared array.
#include <cuda_runtime.h>

__inline__ __device__ float warpMax(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__inline__ __device__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <bool IsMax> __device__ float blockReduce(float v, float *scratch) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = IsMax ? warpMax(v) : warpSum(v);
  __syncthreads(); // scratch may still be read from the previous reduction
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : (IsMax ? -INFINITY : 0.0f);
  return IsMax ? warpMax(v) : warpSum(v);
}

__global__ void softmaxBlockPerRow(const float *__restrict__ x, float *__restrict__ out, int cols) {
  __shared__ float scratch[32];
  const float *row = x + (long)blockIdx.x * cols;
  float *o = out + (long)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    m = fmaxf(m, row[c]);
  m = blockReduce<true>(m, scratch);
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    s += __expf(row[c] - m);
  s = blockReduce<false>(s, scratch);
  float inv = 1.0f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    o[c] = __expf(row[c] - m) * inv;
}

extern "C" void softmax(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
  softmaxBlockPerRow<<<rows, 256, 0, stream>>>(x, out, cols);
}
