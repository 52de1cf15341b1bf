// cudaperf-task: vector_add
// cudaperf-class: process-escape
// cudaperf-source: issue 33 table (fork escape: outlived the batch, busy on the GPU)
// cudaperf-expect: runtime_fault
// fork(), setsid(), fork() again: the grandchild leaves the worker's process group and keeps a CPU
// busy for two minutes. The seccomp filter kills on fork; nothing may outlive the result.
#include <cuda_runtime.h>
#include <chrono>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  pid_t p = fork();
  if (p == 0) {
    setsid();
    if (fork() == 0) {
      auto until = std::chrono::steady_clock::now() + std::chrono::minutes(2);
      volatile unsigned long spin = 0;
      while (std::chrono::steady_clock::now() < until)
        spin = spin + 1;
    }
    _exit(0);
  }
  return p > 0;
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
