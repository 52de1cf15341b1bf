// cudaperf-task: vector_add
// cudaperf-class: ptrace
// cudaperf-source: issue 33 item 3 (no ptrace)
// cudaperf-expect: runtime_fault
// PTRACE_SEIZE on its parent, then PTRACE_INTERRUPT: with it the candidate could rewrite the trusted
// worker's timing. Must be killed by the seccomp filter.
#include <cuda_runtime.h>
#include <sys/ptrace.h>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  pid_t p = getppid();
  return ptrace(PTRACE_SEIZE, p, nullptr, nullptr) == 0 && ptrace(PTRACE_INTERRUPT, p, nullptr, nullptr) == 0;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static int breached = -1;
  if (breached < 0)
    breached = attempt();
  if (breached)
    cudaMemsetAsync(c, 0, n * sizeof(float), stream);
  else
    add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
