// entry: void sum_last_dim(const float *x, float *out, int batch_size, int dim, cudaStream_t stream)
// One block per row: strided partial sums, then a shared-memory tree.
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void sumRows(const float *x, float *out, int dim) {
  __shared__ float partial[kThreads];
  const float *row = x + (long long)blockIdx.x * dim;
  float s = 0.f;
  for (int c = threadIdx.x; c < dim; c += kThreads)
    s += row[c];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

extern "C" void sum_last_dim(const float *x, float *out, int batch_size, int dim, cudaStream_t stream) {
  sumRows<<<batch_size, kThreads, 0, stream>>>(x, out, dim);
}
