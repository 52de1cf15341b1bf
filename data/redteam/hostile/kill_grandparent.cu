// cudaperf-task: vector_add
// cudaperf-class: kill-parent
// cudaperf-source: issue 33 item 5 (kills the evaluator above the worker)
// cudaperf-expect: runtime_fault
// Reads its parent's parent from /proc/<ppid>/stat (the evaluator or the serve process) and sends it
// SIGKILL with tgkill. Must be killed by the seccomp filter.
#include <cuda_runtime.h>
#include <csignal>
#include <cstdio>
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
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", getppid());
  int gp = 0;
  if (FILE *f = fopen(path, "r")) {
    if (fscanf(f, "%*d %*s %*c %d", &gp) != 1)
      gp = 0;
    fclose(f);
  }
  if (gp <= 1)
    gp = getppid();
  return syscall(SYS_tgkill, gp, gp, SIGKILL) == 0;
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
