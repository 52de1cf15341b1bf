// cudaperf-task: vector_add
// cudaperf-class: kill-parent
// cudaperf-source: issue 33 table (kill parent: the evaluator died; --serve: later requests never answered)
// cudaperf-expect: runtime_fault
// kill(getppid(), SIGKILL). The seccomp filter kills the runner on a kill aimed at another process;
// the evaluator must answer the next request.
#include <cuda_runtime.h>
#include <csignal>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  return kill(getppid(), SIGKILL) == 0;
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
