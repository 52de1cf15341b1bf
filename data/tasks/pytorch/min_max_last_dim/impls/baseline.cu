// entry: void min_max_last_dim(const float *x, float *out0, float *out1, int batch_size, int dim, cudaStream_t stream)
// One block per row: strided minimum and maximum per thread, then a shared-memory tree for both.
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void minMaxRows(const float *x, float *outMin, float *outMax, int dim) {
  __shared__ float lo[kThreads];
  __shared__ float hi[kThreads];
  const float *row = x + (long long)blockIdx.x * dim;
  float mn = INFINITY, mx = -INFINITY;
  for (int c = threadIdx.x; c < dim; c += kThreads) {
    mn = fminf(mn, row[c]);
    mx = fmaxf(mx, row[c]);
  }
  lo[threadIdx.x] = mn;
  hi[threadIdx.x] = mx;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      lo[threadIdx.x] = fminf(lo[threadIdx.x], lo[threadIdx.x + stride]);
      hi[threadIdx.x] = fmaxf(hi[threadIdx.x], hi[threadIdx.x + stride]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    outMin[blockIdx.x] = lo[0];
    outMax[blockIdx.x] = hi[0];
  }
}

extern "C" void min_max_last_dim(const float *x, float *out0, float *out1, int batch_size, int dim,
                                 cudaStream_t stream) {
  minMaxRows<<<batch_size, kThreads, 0, stream>>>(x, out0, out1, dim);
}
