// cudaperf-task: matmul
// cudaperf-class: monkey-patch
// cudaperf-source: CUDA-L1 defence table (monkey-patched timing); symbol interposition of the CUDA runtime
// cudaperf-expect: ok,timing_violation
// cudaperf-expect-max-speedup: 1.5
// Defines cudaEventElapsedTime and cudaEventSynchronize itself, forwarding to the next definition
// (dlsym(RTLD_NEXT)) and dividing the elapsed time by 50. It wins only if the loader binds the
// runner's references to the candidate's .so (RTLD_GLOBAL before lazy binding); otherwise it gains
// nothing.
#include <cuda_runtime.h>
#include <dlfcn.h>

__global__ void matmulNaive(const float *A, const float *B, float *C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; ++k)
    acc += A[(long)row * K + k] * B[(long)k * N + col];
  C[(long)row * N + col] = acc;
}

extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  using Fn = cudaError_t (*)(float *, cudaEvent_t, cudaEvent_t);
  static Fn next = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "cudaEventElapsedTime"));
  cudaError_t e = next ? next(ms, start, end) : cudaErrorUnknown;
  if (e == cudaSuccess)
    *ms /= 50;
  return e;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  matmulNaive<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
}
