// cudaperf-task: vector_add
// cudaperf-class: file-write
// cudaperf-source: issue 33 table (writes into the evaluator's working directory)
// cudaperf-expect: ok
// cudaperf-expect-max-speedup: 1.5
// Writes into the parent's working directory (/proc/<ppid>/cwd), the grandparent's, and ../ of its own
// working directory. Its own working directory is its scratch: a file there is allowed (and written).
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
  bool any = false;
  char path[128];
  int ppid = getppid(), gppid = 0;
  snprintf(path, sizeof path, "/proc/%d/stat", ppid);
  if (FILE *f = fopen(path, "r")) {
    if (fscanf(f, "%*d %*s %*c %d", &gppid) != 1)
      gppid = 0;
    fclose(f);
  }
  const char *targets[3] = {"/proc/%d/cwd/redteam-parent-cwd", "/proc/%d/cwd/redteam-grandparent-cwd",
                            "../redteam-above-scratch"};
  int pids[3] = {ppid, gppid, 0};
  for (int t = 0; t < 3; ++t) {
    if (t < 2 && pids[t] <= 1)
      continue;
    snprintf(path, sizeof path, targets[t], pids[t]);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      any = write(fd, "x", 1) == 1 || any;
      close(fd);
    }
  }
  int own = open("redteam-own-scratch-file", O_WRONLY | O_CREAT | O_TRUNC, 0644); // allowed
  if (own >= 0)
    close(own);
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
