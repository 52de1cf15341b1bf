// entry: void argmax_dim(const float *x, long long *out, int batch_size, int dim, cudaStream_t stream)
// One block per row: each thread keeps its best (value, index), then a shared-memory tree; equal
// values keep the lower index, as torch.argmax returns the first maximum.
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void argmaxRows(const float *x, long long *out, int dim) {
  __shared__ float bestValue[kThreads];
  __shared__ int bestIndex[kThreads];
  const float *row = x + (long long)blockIdx.x * dim;
  float v = -INFINITY;
  int idx = dim;  // no element seen yet: loses every comparison below
  for (int c = threadIdx.x; c < dim; c += kThreads) {
    if (row[c] > v || idx == dim) {
      v = row[c];
      idx = c;
    }
  }
  bestValue[threadIdx.x] = v;
  bestIndex[threadIdx.x] = idx;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      float ov = bestValue[threadIdx.x + stride];
      int oi = bestIndex[threadIdx.x + stride];
      float mv = bestValue[threadIdx.x];
      int mi = bestIndex[threadIdx.x];
      if (oi < dim && (mi == dim || ov > mv || (ov == mv && oi < mi))) {
        bestValue[threadIdx.x] = ov;
        bestIndex[threadIdx.x] = oi;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = bestIndex[0];
}

extern "C" void argmax_dim(const float *x, long long *out, int batch_size, int dim, cudaStream_t stream) {
  argmaxRows<<<batch_size, kThreads, 0, stream>>>(x, out, dim);
}
