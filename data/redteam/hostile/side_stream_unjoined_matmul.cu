// cudaperf-task: matmul
// cudaperf-class: side-stream
// cudaperf-source: CUDA-L1 defence table (stream injection); KernelBench PR #82; test/runtime/bad/own_stream_return_early.cu
// cudaperf-expect: timing_violation,wrong_answer
// Launches the multiplication on a stream of its own and returns without making the timed stream
// wait for it: the timed interval holds nothing.
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
  static cudaStream_t side = nullptr;
  if (!side)
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  matmulNaive<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, side>>>(A, B, C, M, N, K);
}
