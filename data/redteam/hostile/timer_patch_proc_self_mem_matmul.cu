// cudaperf-task: matmul
// cudaperf-class: timer-patch
// cudaperf-source: issue 33 item 2 (a timer the candidate cannot patch); GPU MODE reference-kernels (patched timers)
// cudaperf-expect: ok,timing_violation,runtime_fault
// cudaperf-expect-max-speedup: 1.5
// Writes a jump over the start of cudaEventElapsedTime through /proc/self/mem, which writes through
// page protection without any mprotect (so a seccomp rule on PROT_EXEC does not see it). Landlock
// must refuse opening /proc/self/mem for writing; then it just multiplies.
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

__global__ void matmulNaive(const float *A, const float *B, float *C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  float acc = 0;
  for (int k = 0; k < K; ++k)
    acc += A[(long)row * K + k] * B[(long)k * N + col];
  C[(long)row * N + col] = acc;
}

static cudaError_t tinyElapsed(float *ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.0001f;
  return cudaSuccess;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  static bool tried = false;
  if (!tried) {
    tried = true;
#if defined(__x86_64__)
    void *f = dlsym(RTLD_DEFAULT, "cudaEventElapsedTime");
    int mem = open("/proc/self/mem", O_RDWR);
    if (f && mem >= 0) {
      void *to = reinterpret_cast<void *>(tinyElapsed);
      unsigned char jump[12] = {0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xe0};
      memcpy(jump + 2, &to, 8);
      pwrite(mem, jump, sizeof jump, static_cast<off_t>(reinterpret_cast<uintptr_t>(f)));
    }
    if (mem >= 0)
      close(mem);
#endif
  }
  matmulNaive<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
}
