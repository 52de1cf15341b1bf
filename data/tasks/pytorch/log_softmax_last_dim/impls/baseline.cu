// entry: void log_softmax_last_dim(const float *x, float *out, int batch_size, int dim, cudaStream_t stream)
// One block per row, three passes over it: maximum, sum of exp(x - max), then x - max - log(sum).
#include <cuda_runtime.h>

constexpr int kThreads = 256;

// Every thread's v combined over the block; every thread gets the result.
__device__ float blockMax(float v) {
  __shared__ float scratch[kThreads];
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + stride]);
    __syncthreads();
  }
  float r = scratch[0];
  __syncthreads();
  return r;
}

__device__ float blockSum(float v) {
  __shared__ float scratch[kThreads];
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      scratch[threadIdx.x] += scratch[threadIdx.x + stride];
    __syncthreads();
  }
  float r = scratch[0];
  __syncthreads();
  return r;
}

__global__ void logSoftmaxRows(const float *x, float *out, int dim) {
  const float *row = x + (long long)blockIdx.x * dim;
  float *o = out + (long long)blockIdx.x * dim;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < dim; c += kThreads)
    m = fmaxf(m, row[c]);
  m = blockMax(m);
  float s = 0.f;
  for (int c = threadIdx.x; c < dim; c += kThreads)
    s += expf(row[c] - m);
  float logS = logf(blockSum(s));
  for (int c = threadIdx.x; c < dim; c += kThreads)
    o[c] = row[c] - m - logS;
}

extern "C" void log_softmax_last_dim(const float *x, float *out, int batch_size, int dim, cudaStream_t stream) {
  logSoftmaxRows<<<batch_size, kThreads, 0, stream>>>(x, out, dim);
}
