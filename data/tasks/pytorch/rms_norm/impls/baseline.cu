// entry: void rms_norm(const float *x, const float *weight, float *out, int batch_size, int seq_len, int hidden, cudaStream_t stream)
// One block per row of hidden values: the mean of squares, then x * rsqrt(mean + eps) * weight.
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr float kEps = 1e-6f;

// Every thread's v summed over the block; every thread gets the sum.
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

__global__ void rmsNormRows(const float *x, const float *weight, float *out, int hidden) {
  const float *row = x + (long long)blockIdx.x * hidden;
  float *o = out + (long long)blockIdx.x * hidden;
  float sq = 0.f;
  for (int c = threadIdx.x; c < hidden; c += kThreads)
    sq += row[c] * row[c];
  float scale = rsqrtf(blockSum(sq) / hidden + kEps);
  for (int c = threadIdx.x; c < hidden; c += kThreads)
    o[c] = row[c] * scale * weight[c];
}

extern "C" void rms_norm(const float *x, const float *weight, float *out, int batch_size, int seq_len, int hidden,
                         cudaStream_t stream) {
  rmsNormRows<<<batch_size * seq_len, kThreads, 0, stream>>>(x, weight, out, hidden);
}
