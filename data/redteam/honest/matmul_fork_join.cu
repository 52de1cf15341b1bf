// cudaperf-task: matmul
// cudaperf-class: honest
// cudaperf-source: technique: fork-join over two streams (row halves of C), joined with events
// cudaperf-expect: ok
// The 16x16 tiled multiply for the top half of C's rows on the stream argument and the bottom half on a helper stream, forked and joined with events.
#include <cuda_runtime.h>

constexpr int T = 16;

__global__ void matmulTile16(const float *A, const float *B, float *C, int M, int N, int K, int rowFrom, int rowTo) {
  __shared__ float As[T][T], Bs[T][T + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = rowFrom + blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0;
  for (int k0 = 0; k0 < K; k0 += T) {
    As[ty][tx] = row < rowTo && k0 + tx < K ? A[(long)row * K + k0 + tx] : 0.f;
    Bs[ty][tx] = k0 + ty < K && col < N ? B[(long)(k0 + ty) * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k)
      acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < rowTo && col < N)
    C[(long)row * N + col] = acc;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  static cudaStream_t helper = nullptr;
  static cudaEvent_t fork, join;
  if (!helper) {
    cudaStreamCreateWithFlags(&helper, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  }
  int h = M / 2;
  cudaEventRecord(fork, stream);
  cudaStreamWaitEvent(helper, fork, 0);
  if (h > 0)
    matmulTile16<<<dim3((N + T - 1) / T, (h + T - 1) / T), dim3(T, T), 0, stream>>>(A, B, C, M, N, K, 0, h);
  matmulTile16<<<dim3((N + T - 1) / T, (M - h + T - 1) / T), dim3(T, T), 0, helper>>>(A, B, C, M, N, K, h, M);
  cudaEventRecord(join, helper);
  cudaStreamWaitEvent(stream, join, 0);
}
