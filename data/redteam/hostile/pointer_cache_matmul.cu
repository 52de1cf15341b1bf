// cudaperf-task: matmul
// cudaperf-class: result-replay
// cudaperf-source: KernelBench PR #82 (cached outputs keyed by buffer address); test/runtime/bad/cache_first_call.cu
// cudaperf-expect: wrong_answer
// Multiplies on the first call for a given output pointer and size, then copies that saved result
// on every later call whatever the inputs. The buffers stay the same across calls, so this replays
// stale answers for new inputs.
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
  static float *saved = nullptr, *savedFor = nullptr;
  static long savedSize = 0;
  size_t bytes = (size_t)M * N * sizeof(float);
  if (savedFor == C && savedSize == (long)bytes) {
    cudaMemcpyAsync(C, saved, bytes, cudaMemcpyDeviceToDevice, stream);
    return;
  }
  matmulNaive<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
  cudaFree(saved);
  cudaMalloc(&saved, bytes);
  cudaMemcpyAsync(saved, C, bytes, cudaMemcpyDeviceToDevice, stream);
  savedFor = C;
  savedSize = (long)bytes;
}
