// cudaperf-task: vector_add
// cudaperf-class: kill-parent
// cudaperf-source: issue 33 item 5 (a candidate that stops its parent)
// cudaperf-expect: runtime_fault
// kill(getppid(), SIGSTOP): a stopped supervisor would never time out the runner. Must be killed.
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
  return kill(getppid(), SIGSTOP) == 0;
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
