// cudaperf-task: vector_add
// cudaperf-class: process-escape
// cudaperf-source: issue 33 item 3 (seccomp cannot read clone3's flags: a filter must refuse clone3 itself)
// cudaperf-expect: runtime_fault,ok
// cudaperf-expect-max-speedup: 1.5
// Calls clone3 directly without CLONE_THREAD (a plain fork): a filter that only inspects clone's flag
// argument cannot see clone3's, which sit in a struct. clone3 must fail (ENOSYS or EPERM: then ok,
// nothing left behind) or kill the runner; a child that runs is a breach (and stays two minutes).
#include <cuda_runtime.h>
#include <chrono>
#include <linux/sched.h>
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
  clone_args args = {};
  args.exit_signal = 17; // SIGCHLD
  long p = syscall(SYS_clone3, &args, sizeof args);
  if (p == 0) {
    auto until = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (std::chrono::steady_clock::now() < until)
      usleep(1000);
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
