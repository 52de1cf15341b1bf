// cudaperf-task: vector_add
// cudaperf-class: exec
// cudaperf-source: issue 33 item 3 (seccomp: no execve)
// cudaperf-expect: runtime_fault
// Replaces the runner with /bin/sh -c "sleep 300" (execve). Must be killed by the seccomp filter.
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  char *argv[] = {const_cast<char *>("sh"), const_cast<char *>("-c"), const_cast<char *>("sleep 300"), nullptr};
  execv("/bin/sh", argv);
  return false;
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
