// 64x64 output tiles per 256-thread block, K stepped 16 at a time through shared memory; each
// thread accumulates a 4x4 block of outputs in registers, so every shared value loaded is used
// four times.
#include <cuda_runtime.h>

constexpr int kBM = 64, kBN = 64, kBK = 16, kTM = 4, kTN = 4;

__global__ void __launch_bounds__(256) matmulTiled(const float *__restrict__ A, const float *__restrict__ B,
                                                   float *__restrict__ C, int M, int N, int K) {
  __shared__ float As[kBK][kBM + 4];
  __shared__ float Bs[kBK][kBN];
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int rowBase = blockIdx.y * kBM, colBase = blockIdx.x * kBN;
  float acc[kTM][kTN] = {};
  for (int k0 = 0; k0 < K; k0 += kBK) {
    // 64x16 of A and 16x64 of B: 1024 values each, 4 per thread.
    for (int l = threadIdx.x; l < kBM * kBK; l += 256) {
      int r = l / kBK, k = l % kBK;
      int gr = rowBase + r, gk = k0 + k;
      As[k][r] = (gr < M && gk < K) ? A[(long)gr * K + gk] : 0.0f;
    }
    for (int l = threadIdx.x; l < kBK * kBN; l += 256) {
      int k = l / kBN, c = l % kBN;
      int gk = k0 + k, gc = colBase + c;
      Bs[k][c] = (gk < K && gc < N) ? B[(long)gk * N + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      float a[kTM], b[kTN];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
        a[i] = As[k][ty * kTM + i];
#pragma unroll
      for (int j = 0; j < kTN; ++j)
        b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j)
          acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTM; ++i) {
    int r = rowBase + ty * kTM + i;
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
      int c = colBase + tx + 16 * j;
      if (r < M && c < N)
        C[(long)r * N + c] = acc[i][j];
    }
  }
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  dim3 grid((N + kBN - 1) / kBN, (M + kBM - 1) / kBM);
  matmulTiled<<<grid, 256, 0, stream>>>(A, B, C, M, N, K);
}
