// cudaperf-task: matmul
// cudaperf-expect: wrong_answer
// Ignores the last K % 16 products (a tile-edge bug).
#include <cuda_runtime.h>
__global__ void k(const float *A, const float *B, float *C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K / 16 * 16; ++k)
    acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t s) {
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  k<<<grid, block, 0, s>>>(A, B, C, M, N, K);
}
