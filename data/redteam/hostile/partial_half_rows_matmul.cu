// cudaperf-task: matmul
// cudaperf-class: partial-computation
// cudaperf-source: KernelBench PR #82 (partial outputs); test/runtime/bad/half_output.cu
// cudaperf-expect: wrong_answer
// Computes only the first half of C's rows and leaves the rest as the buffer held them.
#include <cuda_runtime.h>

__global__ void matmulNaive(const float *A, const float *B, float *C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; ++k)
    acc += A[(long)row * K + k] * B[(long)k * N + col];
  C[(long)row * N + col] = acc;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  int half = (M + 1) / 2;
  matmulNaive<<<dim3((N + 15) / 16, (half + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, half, N, K);
}
