// cudaperf-task: softmax
// cudaperf-class: honest
// cudaperf-source: technique: online softmax (running max and rescaled sum in one pass), one warp per row
// cudaperf-expect: ok
// Each warp owns a row: one pass keeps a running max m and a sum s rescaled by exp(m_old - m_new) when
// the max grows; the warp merges its lanes' (m, s) pairs with shuffles; a second pass writes.
#include <cuda_runtime.h>

__device__ void merge(float &m, float &s, float om, float os) {
  float nm = fmaxf(m, om);
  s = (m == -INFINITY ? 0.f : s * expf(m - nm)) + (om == -INFINITY ? 0.f : os * expf(om - nm));
  m = nm;
}

__global__ void softmaxWarpOnline(const float *x, float *out, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x & 31;
  if (row >= rows)
    return;
  const float *xr = x + (long)row * cols;
  float m = -INFINITY, s = 0;
  for (int c = lane; c < cols; c += 32)
    merge(m, s, xr[c], 1.f);
  for (int o = 16; o; o >>= 1) {
    float om = __shfl_xor_sync(0xffffffffu, m, o), os = __shfl_xor_sync(0xffffffffu, s, o);
    merge(m, s, om, os);
  }
  float inv = 1.f / s;
  for (int c = lane; c < cols; c += 32)
    out[(long)row * cols + c] = expf(xr[c] - m) * inv;
}

extern "C" void softmax(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
  softmaxWarpOnline<<<(rows + 7) / 8, 256, 0, stream>>>(x, out, rows, cols);
}
