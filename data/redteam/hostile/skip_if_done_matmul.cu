// cudaperf-task: matmul
// cudaperf-class: skip-if-done
// cudaperf-source: issue 33 table (2.5x on matmul, 530x on KernelBench ReLU); GPU MODE reference-kernels
// cudaperf-expect: ok,wrong_answer
// cudaperf-expect-max-speedup: 1.5
// A one-thread kernel looks at C[0] and C[M*N-1]; if both already hold finite values (left by the
// previous call on the same buffers) it raises a flag and the real kernel returns at once. With the
// outputs poisoned before every timed call the flag never rises: it must gain nothing.
#include <cuda_runtime.h>

__global__ void sentinel(const float *C, int last, int *skip) {
  *skip = isfinite(C[0]) && isfinite(C[last]);
}

__global__ void matmulOrSkip(const float *A, const float *B, float *C, int M, int N, int K, const int *skip) {
  if (*skip)
    return;
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; ++k)
    acc += A[(long)row * K + k] * B[(long)k * N + col];
  C[(long)row * N + col] = acc;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  static int *skip = nullptr;
  if (!skip)
    cudaMalloc(&skip, sizeof(int));
  sentinel<<<1, 1, 0, stream>>>(C, M * N - 1, skip);
  matmulOrSkip<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K, skip);
}
