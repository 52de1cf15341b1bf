// cudaperf-task: vector_add
// cudaperf-class: kill-parent
// cudaperf-source: issue 33 item 3 (pidfd_open / pidfd_send_signal)
// cudaperf-expect: runtime_fault
// Signals the parent through a pidfd (pidfd_open + pidfd_send_signal), a path a filter on kill alone
// misses. Must be killed by the seccomp filter.
#include <cuda_runtime.h>
#include <csignal>
#include <sys/syscall.h>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  int fd = (int)syscall(SYS_pidfd_open, getppid(), 0);
  if (fd < 0)
    return false;
  return syscall(SYS_pidfd_send_signal, fd, SIGKILL, nullptr, 0) == 0;
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
