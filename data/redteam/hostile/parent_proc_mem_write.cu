// cudaperf-task: vector_add
// cudaperf-class: ptrace
// cudaperf-source: issue 33 item 3; /proc/<pid>/mem writes bypass page protection
// cudaperf-expect: ok,runtime_fault
// cudaperf-expect-max-speedup: 1.5
// Opens /proc/<ppid>/mem for writing (a ptrace-mode access): with it the candidate could patch the
// trusted worker. Landlock (and the ptrace access check) must refuse the open.
#include <cuda_runtime.h>
#include <cstdio>
#include <fcntl.h>
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
  snprintf(path, sizeof path, "/proc/%d/mem", getppid());
  int fd = open(path, O_RDWR);
  if (fd < 0)
    return false;
  close(fd);
  return true;
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
