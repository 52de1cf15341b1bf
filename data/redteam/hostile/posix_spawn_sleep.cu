// cudaperf-task: vector_add
// cudaperf-class: process-escape
// cudaperf-source: issue 33 item 3 (seccomp: vfork, clone without CLONE_THREAD, execve)
// cudaperf-expect: runtime_fault
// posix_spawn of /bin/sleep 120 (glibc uses clone(CLONE_VM | CLONE_VFORK) and execve): a second way
// to start a process. Must be killed by the seccomp filter.
#include <cuda_runtime.h>
#include <spawn.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  pid_t pid;
  char *argv[] = {const_cast<char *>("sleep"), const_cast<char *>("120"), nullptr};
  char *envp[] = {nullptr};
  return posix_spawn(&pid, "/bin/sleep", nullptr, nullptr, argv, envp) == 0;
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
