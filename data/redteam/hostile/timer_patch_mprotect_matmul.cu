// cudaperf-task: matmul
// cudaperf-class: timer-patch
// cudaperf-source: issue 33 table (timer patch: 167x); GPU MODE reference-kernels (patched timers); CUDA-L1 defence table (monkey-patched timing)
// cudaperf-expect: ok,timing_violation,runtime_fault
// cudaperf-expect-max-speedup: 1.5
// On its first call, makes the page holding cudaEventElapsedTime writable and executable (mprotect)
// and overwrites its first bytes with a jump to a function that reports 0.0001 ms. The sandbox refuses
// new executable mappings (EPERM): then it just multiplies, and must gain nothing.
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sys/mman.h>
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

static bool patchWithJump(void *target, void *to) {
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t start = reinterpret_cast<uintptr_t>(target) & ~uintptr_t(page - 1);
  if (mprotect(reinterpret_cast<void *>(start), 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
    return false;
  unsigned char jump[12] = {0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xe0}; // movabs rax, to; jmp rax
  memcpy(jump + 2, &to, 8);
  memcpy(target, jump, sizeof jump);
  mprotect(reinterpret_cast<void *>(start), 2 * page, PROT_READ | PROT_EXEC);
  return true;
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  static bool tried = false;
  if (!tried) {
    tried = true;
#if defined(__x86_64__)
    if (void *f = dlsym(RTLD_DEFAULT, "cudaEventElapsedTime"))
      patchWithJump(f, reinterpret_cast<void *>(tinyElapsed));
#endif
  }
  matmulNaive<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
}
