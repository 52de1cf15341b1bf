// entry: void matmul_bias_gelu(const float *x, const float *weight, const float *bias, float *out, int batch_size, int in_features, int out_features, cudaStream_t stream)
// One thread per output element: a warp shares the row of x and reads consecutive weight columns;
// bias and the exact GELU are applied before the single store.
#include <cuda_runtime.h>

__global__ void matmulBiasGelu(const float *x, const float *w, const float *bias, float *out, int batch, int in,
                               int outFeatures) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= batch || col >= outFeatures)
    return;
  const float *xr = x + (long long)row * in;
  float s = 0.f;
  for (int p = 0; p < in; ++p)
    s += xr[p] * w[(long long)p * outFeatures + col];
  float v = s + bias[col];
  out[(long long)row * outFeatures + col] = 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
}

extern "C" void matmul_bias_gelu(const float *x, const float *weight, const float *bias, float *out, int batch_size,
                                 int in_features, int out_features, cudaStream_t stream) {
  dim3 block(32, 8);
  dim3 grid((out_features + block.x - 1) / block.x, (batch_size + block.y - 1) / block.y);
  matmulBiasGelu<<<grid, block, 0, stream>>>(x, weight, bias, out, batch_size, in_features, out_features);
}
