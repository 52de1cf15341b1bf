// Row-wise softmax and layer norm with one warp per row (warp shuffles, no shared memory): 8192 rows x 1024 columns,
// 256-thread blocks (8 rows per block), 32 elements per lane held in registers.
#include "corpus_util.h"

__device__ __forceinline__ float warpMax(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warpSum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ double warpSumD(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// @kernel pattern=coalesced; note=expf is a library sequence (FFMA/FMUL around MUFU.EX2); loads and stores x[lane + 32k]
__global__ void softmax_warp_f32(const float* __restrict__ in, float* __restrict__ out, int rows) {
  const int cols = 1024;
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float v[32];
  for (int k = 0; k < 32; ++k) v[k] = in[row * cols + lane + 32 * k];  // @ld.global 4B exp=4 insts=32
  float m = -INFINITY;
  for (int k = 0; k < 32; ++k) m = fmaxf(m, v[k]);
  m = warpMax(m);
  float sum = 0.0f;
  for (int k = 0; k < 32; ++k) {
    v[k] = expf(v[k] - m);
    sum += v[k];
  }
  float inv = 1.0f / warpSum(sum);
  for (int k = 0; k < 32; ++k) out[row * cols + lane + 32 * k] = v[k] * inv;  // @st.global 4B exp=4 insts=32
}

// @kernel pattern=coalesced; note=mean, variance (two-pass over registers), rsqrtf, then (x - mean) * rstd * gamma + beta
__global__ void layernorm_warp_f32(const float* __restrict__ in, const float* __restrict__ gamma, const float* __restrict__ beta,
                                   float* __restrict__ out, int rows) {
  const int cols = 1024;
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float v[32];
  float sum = 0.0f;
  for (int k = 0; k < 32; ++k) {
    v[k] = in[row * cols + lane + 32 * k];  // @ld.global 4B exp=4 insts=32
    sum += v[k];
  }
  float mean = warpSum(sum) * (1.0f / cols);
  float var = 0.0f;
  for (int k = 0; k < 32; ++k) {
    float d = v[k] - mean;
    var += d * d;
  }
  float rstd = rsqrtf(warpSum(var) * (1.0f / cols) + 1e-5f);
  for (int k = 0; k < 32; ++k) {
    int j = lane + 32 * k;
    out[row * cols + j] = (v[k] - mean) * rstd * gamma[j] + beta[j];  // @ld.global 4B exp=4 insts=64 @st.global 4B exp=4 insts=32
  }
}

// @kernel pattern=coalesced; note=fp64 layer norm, 16 elements per lane in registers (rows of 512 doubles); 1/sqrt in fp64 is a library sequence
__global__ void layernorm_warp_f64(const double* __restrict__ in, double* __restrict__ out, int rows) {
  const int cols = 512;
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  double v[16];
  double sum = 0.0;
  for (int k = 0; k < 16; ++k) {
    v[k] = in[row * cols + lane + 32 * k];  // @ld.global 8B exp=8 insts=16
    sum += v[k];
  }
  double mean = warpSumD(sum) / cols;
  double var = 0.0;
  for (int k = 0; k < 16; ++k) {
    double d = v[k] - mean;
    var += d * d;
  }
  double rstd = rsqrt(warpSumD(var) / cols + 1e-10);
  for (int k = 0; k < 16; ++k) out[row * cols + lane + 32 * k] = (v[k] - mean) * rstd;  // @st.global 8B exp=8 insts=16
}

int main() {
  const int rows = 8192;
  const int cols = 1024;
  float* in = deviceRandomFloats(rows * cols, 181);
  float* out = deviceAlloc<float>(rows * cols);
  float* gamma = deviceRandomFloats(cols, 182);
  float* beta = deviceRandomFloats(cols, 183);
  softmax_warp_f32<<<rows / 8, 256>>>(in, out, rows);
  CHECK_LAUNCH();
  layernorm_warp_f32<<<rows / 8, 256>>>(in, gamma, beta, out, rows);
  CHECK_LAUNCH();
  const int rowsD = 8192;
  double* inD = deviceRandomDoubles(rowsD * 512, 184);
  double* outD = deviceAlloc<double>(rowsD * 512);
  layernorm_warp_f64<<<rowsD / 8, 256>>>(inD, outD, rowsD);
  CHECK_LAUNCH();
  printf("compute_norm: ok\n");
  return 0;
}
