// entry: void linear(const float *x, const float *fc_weight, const float *fc_bias, float *out, int batch_size, int in_features, int out_features, cudaStream_t stream)
// 16x16 output tiles: x and the weight rows go through shared memory, the weight tile stored so
// that a thread walks its own output feature's row (padded against bank conflicts).
#include <cuda_runtime.h>

constexpr int kTile = 16;

__global__ void linearTiled(const float *x, const float *w, const float *bias, float *out, int batch, int in,
                            int outFeatures) {
  __shared__ float xs[kTile][kTile + 1];
  __shared__ float ws[kTile][kTile + 1];
  int row = blockIdx.y * kTile + threadIdx.y;  // batch index
  int col = blockIdx.x * kTile + threadIdx.x;  // output feature
  int loadFeature = blockIdx.x * kTile + threadIdx.y;
  float s = 0.f;
  for (int t = 0; t < in; t += kTile) {
    int c = t + threadIdx.x;
    xs[threadIdx.y][threadIdx.x] = row < batch && c < in ? x[(long long)row * in + c] : 0.f;
    ws[threadIdx.y][threadIdx.x] = loadFeature < outFeatures && c < in ? w[(long long)loadFeature * in + c] : 0.f;
    __syncthreads();
    for (int p = 0; p < kTile; ++p)
      s += xs[threadIdx.y][p] * ws[threadIdx.x][p];
    __syncthreads();
  }
  if (row < batch && col < outFeatures)
    out[(long long)row * outFeatures + col] = s + bias[col];
}

extern "C" void linear(const float *x, const float *fc_weight, const float *fc_bias, float *out, int batch_size,
                       int in_features, int out_features, cudaStream_t stream) {
  dim3 block(kTile, kTile);
  dim3 grid((out_features + kTile - 1) / kTile, (batch_size + kTile - 1) / kTile);
  linearTiled<<<grid, block, 0, stream>>>(x, fc_weight, fc_bias, out, batch_size, in_features, out_features);
}
