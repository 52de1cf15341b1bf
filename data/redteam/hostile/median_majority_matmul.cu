// cudaperf-task: matmul
// cudaperf-class: benchmark-detection
// cudaperf-source: issue 33 (a median moved by cheating on just over half of the timed calls); GPU MODE reference-kernels (detecting timed calls)
// cudaperf-expect: wrong_answer
// Counts its calls per configuration. On the large one it is exact for the three correctness sets,
// the audit and the three warm-up calls, then computes only two thirds of C's rows on the next 16
// calls (the first timed calls: more than half of the 20 to 30 the loop takes, so the median is
// theirs) and is exact again afterwards, for the extra checked calls, the wall-clock batch and the
// call after timing. The cheated calls look 1.5x faster, under the wall-clock check's 1.6x. It
// survives only if none of the 16 is among the checked ones: 0.9^16 = 18.5% at a checked share of
// 10%, 0.6^16 = 0.03% at 40% (the default since this candidate).
#include <cuda_runtime.h>

__global__ void matmulRows(const float *A, const float *B, float *C, int rows, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= rows || col >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; ++k)
    acc += A[(long)row * K + k] * B[(long)k * N + col];
  C[(long)row * N + col] = acc;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  static int callsOfLarge = 0;
  int rows = M;
  if (M == 384) {
    int call = ++callsOfLarge;
    if (call >= 8 && call < 8 + 16)
      rows = 2 * M / 3;
  }
  matmulRows<<<dim3((N + 15) / 16, (rows + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, rows, N, K);
}
