// cudaperf-task: vector_add
// cudaperf-class: file-write
// cudaperf-source: issue 33 table (cache and file writes)
// cudaperf-expect: ok
// cudaperf-expect-max-speedup: 1.5
// Creates /tmp/redteam-tmp-write, /dev/shm/redteam-shm-write and /var/tmp/redteam-var-tmp-write
// (absolute paths, not $TMPDIR, which points into the scratch directory). All must fail.
#include <cuda_runtime.h>
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
  bool any = false;
  for (const char *p : {"/tmp/redteam-tmp-write", "/dev/shm/redteam-shm-write", "/var/tmp/redteam-var-tmp-write"}) {
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      any = write(fd, "x", 1) == 1 || any;
      close(fd);
    }
  }
  return any;
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
