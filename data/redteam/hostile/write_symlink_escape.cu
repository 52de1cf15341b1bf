// cudaperf-task: vector_add
// cudaperf-class: file-write
// cudaperf-source: issue 33 item 3 (no writes outside the scratch directory); symlinks against path-based confinement
// cudaperf-expect: ok
// cudaperf-expect-max-speedup: 1.5
// Creates a symlink in its scratch directory pointing at /tmp and a hard link to /etc/hostname, then
// writes through them. Landlock checks the resolved path (and refuses cross-directory links): the
// writes must fail.
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
  unlink("redteam-link");
  if (symlink("/tmp", "redteam-link") == 0) {
    int fd = open("redteam-link/redteam-through-symlink", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      any = write(fd, "x", 1) == 1;
      close(fd);
    }
  }
  if (link("/etc/hostname", "redteam-hardlink") == 0) {
    int fd = open("redteam-hardlink", O_WRONLY | O_APPEND);
    if (fd >= 0) {
      any = true;
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
