// entry: void layer_norm(const float *x, const float *ln_weight, const float *ln_bias, float *out, int batch_size, int seq_len, int hidden, cudaStream_t stream)
// One block per row of hidden values: the mean, then the biased variance around it (two passes,
// no cancellation), then the normalized, scaled and shifted outputs.
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr float kEps = 1e-5f;

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

__global__ void layerNormRows(const float *x, const float *weight, const float *bias, float *out, int hidden) {
  const float *row = x + (long long)blockIdx.x * hidden;
  float *o = out + (long long)blockIdx.x * hidden;
  float s = 0.f;
  for (int c = threadIdx.x; c < hidden; c += kThreads)
    s += row[c];
  float mean = blockSum(s) / hidden;
  float sq = 0.f;
  for (int c = threadIdx.x; c < hidden; c += kThreads) {
    float d = row[c] - mean;
    sq += d * d;
  }
  float rstd = rsqrtf(blockSum(sq) / hidden + kEps);
  for (int c = threadIdx.x; c < hidden; c += kThreads)
    o[c] = (row[c] - mean) * rstd * weight[c] + bias[c];
}

extern "C" void layer_norm(const float *x, const float *ln_weight, const float *ln_bias, float *out, int batch_size,
                           int seq_len, int hidden, cudaStream_t stream) {
  layerNormRows<<<batch_size * seq_len, kThreads, 0, stream>>>(x, ln_weight, ln_bias, out, hidden);
}
