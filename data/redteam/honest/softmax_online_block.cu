// cudaperf-task: softmax
// cudaperf-class: honest
// cudaperf-source: technique: online softmax, block per row, single read pass plus write pass
// cudaperf-expect: ok
// One block per row; each thread keeps an online (max, sum) pair over its strided elements, merged
// across the block by shuffles and shared memory; then one pass writes exp(x - m) / s.
#include <cuda_runtime.h>

__device__ void merge(float &m, float &s, float om, float os) {
  float nm = fmaxf(m, om);
  s = (m == -INFINITY ? 0.f : s * expf(m - nm)) + (om == -INFINITY ? 0.f : os * expf(om - nm));
  m = nm;
}

__global__ void softmaxBlockOnline(const float *x, float *out, int cols) {
  __shared__ float wm[32], ws[32];
  const float *xr = x + (long)blockIdx.x * cols;
  float m = -INFINITY, s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    merge(m, s, xr[c], 1.f);
  for (int o = 16; o; o >>= 1)
    merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
  if ((threadIdx.x & 31) == 0) {
    wm[threadIdx.x / 32] = m;
    ws[threadIdx.x / 32] = s;
  }
  __syncthreads();
  m = wm[0];
  s = ws[0];
  for (int w = 1; w < blockDim.x / 32; ++w)
    merge(m, s, wm[w], ws[w]);
  float inv = 1.f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(long)blockIdx.x * cols + c] = expf(xr[c] - m) * inv;
}

extern "C" void softmax(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
  softmaxBlockOnline<<<rows, 128, 0, stream>>>(x, out, cols);
}
