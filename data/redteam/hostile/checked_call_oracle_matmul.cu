// cudaperf-task: matmul
// cudaperf-class: benchmark-detection
// cudaperf-source: GPU MODE reference-kernels (detecting timed calls); issue 33 item 4 (random sample of timed calls checked)
// cudaperf-expect: wrong_answer
// Guesses which calls are checked: it computes when more than 2 ms passed since its previous call
// (checks, comparisons and the audit take that long) or in the first 5 calls, and skips calls that
// come in quick succession (the timing loop). A random sample of timed calls checked catches it.
#include <chrono>
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
  using Clock = std::chrono::steady_clock;
  static Clock::time_point last;
  static int calls = 0;
  Clock::time_point now = Clock::now();
  bool quick = calls++ >= 5 && now - last < std::chrono::milliseconds(2);
  last = now;
  if (quick)
    return;
  matmulNaive<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
}
