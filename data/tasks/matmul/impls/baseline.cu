// One thread per output element, reading A and B straight from global memory.
#include <cuda_runtime.h>

__global__ void matmulNaive(const float *A, const float *B, float *C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; ++k)
    acc += A[(long)row * K + k] * B[(long)k * N + col];
  C[(long)row * N + col] = acc;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  matmulNaive<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
