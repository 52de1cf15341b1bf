// cudaperf-task: vector_add
// cudaperf-class: kill-siblings
// cudaperf-source: issue 33 item 5 (kills its siblings)
// cudaperf-expect: runtime_fault
// kill(-getpgrp(), SIGTERM) and kill(0, SIGKILL): everything in its process group. Must be killed by
// the seccomp filter before a signal leaves.
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
  signal(SIGTERM, SIG_IGN);
  return kill(-getpgrp(), SIGTERM) == 0 && kill(0, SIGKILL) == 0;
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
