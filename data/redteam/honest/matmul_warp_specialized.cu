// cudaperf-task: matmul
// cudaperf-class: honest
// cudaperf-source: technique: warp-specialized producer/consumer (one producer warp stages tiles, eight consumer warps multiply)
// cudaperf-expect: ok
// A 32x64 output tile per block of 288 threads: warp 0 (producer) loads the next 16-deep slices of A
// and B into the other half of a double buffer while warps 1-8 (consumers, 256 threads) compute the
// current slice, each a 1x8 strip of outputs; one __syncthreads per step swaps the buffers.
#include <cuda_runtime.h>

constexpr int BM = 32, BN = 64, BK = 16;

__global__ void matmulSpecialized(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[2][BK][BM], Bs[2][BK][BN];
  int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  bool producer = threadIdx.x < 32;
  int lane = threadIdx.x;
  auto load = [&](int k0, int s) {
    for (int l = lane; l < BM * BK; l += 32) {
      int r = l / BK, k = l % BK;
      As[s][k][r] = row0 + r < M && k0 + k < K ? A[(long)(row0 + r) * K + k0 + k] : 0.f;
    }
    for (int l = lane; l < BK * BN; l += 32) {
      int k = l / BN, c = l % BN;
      Bs[s][k][c] = k0 + k < K && col0 + c < N ? B[(long)(k0 + k) * N + col0 + c] : 0.f;
    }
  };
  int t = threadIdx.x - 32, r = t / 8, cBase = t % 8; // consumer: row r, columns cBase + 8 j
  float acc[8] = {};
  if (producer)
    load(0, 0);
  __syncthreads();
  int s = 0;
  for (int k0 = 0; k0 < K; k0 += BK) {
    if (producer) {
      if (k0 + BK < K)
        load(k0 + BK, s ^ 1);
    } else {
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        float a = As[s][k][r];
#pragma unroll
        for (int j = 0; j < 8; ++j)
          acc[j] = fmaf(a, Bs[s][k][cBase + 8 * j], acc[j]);
      }
    }
    __syncthreads();
    s ^= 1;
  }
  if (!producer)
    for (int j = 0; j < 8; ++j) {
      int row = row0 + r, col = col0 + cBase + 8 * j;
      if (row < M && col < N)
        C[(long)row * N + col] = acc[j];
    }
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  matmulSpecialized<<<dim3((N + BN - 1) / BN, (M + BM - 1) / BM), 288, 0, stream>>>(A, B, C, M, N, K);
}
