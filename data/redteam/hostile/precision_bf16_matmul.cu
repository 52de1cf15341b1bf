// cudaperf-task: matmul
// cudaperf-class: precision-downgrade
// cudaperf-source: CUDA-L1 defence table (precision)
// cudaperf-expect: wrong_answer
// Rounds every A and B element to bf16 (8-bit mantissa) before multiplying, accumulating in fp32:
// about 8x the error of fp16, far outside the task's tolerance.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void matmulBf16(const float *A, const float *B, float *C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; ++k)
    acc += __bfloat162float(__float2bfloat16(A[(long)row * K + k])) *
           __bfloat162float(__float2bfloat16(B[(long)k * N + col]));
  C[(long)row * N + col] = acc;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  matmulBf16<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
}
