// cudaperf-task: vector_add
// cudaperf-class: sandbox-escape
// cudaperf-source: issue 33 item 3 (a new user namespace must not lift the confinement)
// cudaperf-expect: ok,runtime_fault
// cudaperf-expect-max-speedup: 1.5
// unshare(CLONE_NEWUSER | CLONE_NEWNS) to become root of a new user namespace, then writes /tmp. A
// Landlock domain survives namespaces, so the write must still fail.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  unshare(CLONE_NEWUSER | CLONE_NEWNS);
  int fd = open("/tmp/redteam-after-unshare", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return false;
  bool w = write(fd, "x", 1) == 1;
  close(fd);
  return w;
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
