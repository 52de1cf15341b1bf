// cudaperf-task: softmax
// cudaperf-class: honest
// cudaperf-source: technique: block per row, row cached in shared memory, block reductions by warp shuffles
// cudaperf-expect: ok
// One 256-thread block per row: the row is read once into dynamic shared memory; max and sum are
// block reductions (shuffles within warps, shared memory across them); exp computed once per element.
#include <cuda_runtime.h>

__device__ float blockReduce(float v, bool isMax, float *warps) {
  for (int o = 16; o; o >>= 1) {
    float w = __shfl_xor_sync(0xffffffffu, v, o);
    v = isMax ? fmaxf(v, w) : v + w;
  }
  __syncthreads();
  if ((threadIdx.x & 31) == 0)
    warps[threadIdx.x / 32] = v;
  __syncthreads();
  v = warps[0];
  for (int w = 1; w < blockDim.x / 32; ++w)
    v = isMax ? fmaxf(v, warps[w]) : v + warps[w];
  return v;
}

__global__ void softmaxRowShared(const float *x, float *out, int cols) {
  extern __shared__ float row[];
  __shared__ float warps[32];
  const float *xr = x + (long)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    row[c] = xr[c];
    m = fmaxf(m, row[c]);
  }
  m = blockReduce(m, true, warps);
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    row[c] = expf(row[c] - m);
    s += row[c];
  }
  s = blockReduce(s, false, warps);
  float inv = 1.f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(long)blockIdx.x * cols + c] = row[c] * inv;
}

extern "C" void softmax(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
  softmaxRowShared<<<rows, 256, cols * sizeof(float), stream>>>(x, out, cols);
}
