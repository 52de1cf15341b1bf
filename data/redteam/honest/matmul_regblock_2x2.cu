// cudaperf-task: matmul
// cudaperf-class: honest
// cudaperf-source: technique: register blocking, 32x32 block tile, 2x2 outputs per thread
// cudaperf-expect: ok
// 256 threads per 32x32 output tile would give one output each; here 16x16 threads compute 2x2
// outputs each (rows ty and ty+16, columns tx and tx+16), so each shared value is used twice.
#include <cuda_runtime.h>

constexpr int BT = 32, BK = 16;

__global__ void matmulReg2x2(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[BK][BT + 1], Bs[BK][BT];
  int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
  int row0 = blockIdx.y * BT, col0 = blockIdx.x * BT;
  float acc[2][2] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int l = t; l < BT * BK; l += 256) {
      int r = l / BK, k = l % BK;
      As[k][r] = row0 + r < M && k0 + k < K ? A[(long)(row0 + r) * K + k0 + k] : 0.f;
      int kb = l / BT, c = l % BT;
      Bs[kb][c] = k0 + kb < K && col0 + c < N ? B[(long)(k0 + kb) * N + col0 + c] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a0 = As[k][ty], a1 = As[k][ty + 16], b0 = Bs[k][tx], b1 = Bs[k][tx + 16];
      acc[0][0] = fmaf(a0, b0, acc[0][0]);
      acc[0][1] = fmaf(a0, b1, acc[0][1]);
      acc[1][0] = fmaf(a1, b0, acc[1][0]);
      acc[1][1] = fmaf(a1, b1, acc[1][1]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      int r = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
      if (r < M && c < N)
        C[(long)r * N + c] = acc[i][j];
    }
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  matmulReg2x2<<<dim3((N + BT - 1) / BT, (M + BT - 1) / BT), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
}
