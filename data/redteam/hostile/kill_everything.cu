// cudaperf-task: vector_add
// cudaperf-class: kill-siblings
// cudaperf-source: issue 33 item 5 (kills its siblings)
// cudaperf-expect: runtime_fault
// cudaperf-destructive: unconfined, kill(-1, SIGKILL) as root ends every process on the host
// kill(-1, SIGKILL): every process it may signal (as root on the GPU host: all of them). Must be
// killed by the seccomp filter first.
#include <cuda_runtime.h>
#include <csignal>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  return kill(-1, SIGKILL) == 0;
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
