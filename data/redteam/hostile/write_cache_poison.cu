// cudaperf-task: vector_add
// cudaperf-class: cache-poisoning
// cudaperf-source: issue 33 table (cache and file writes: ~/.cache/cudaperf holds the baseline's object)
// cudaperf-expect: ok
// cudaperf-expect-max-speedup: 1.5
// Walks the evaluator's build cache ($CUDAPERF_CACHE_DIR if the runner still sees it, and the real
// home's ~/.cache/cudaperf) appending to every file (a corrupted cached baseline rebuilt slower, or a
// poisoned object loaded by a later candidate), and drops a new file there. All must fail.
#include <cuda_runtime.h>
#include <cstdlib>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <string>
#include <unistd.h>
static int gWritten = 0;
static int poison(const char *path, const struct stat *, int type, struct FTW *) {
  if (type == FTW_F) {
    int fd = open(path, O_WRONLY | O_APPEND);
    if (fd >= 0) {
      gWritten += write(fd, "", 0) == 0; // opening for writing is the breach; append nothing
      close(fd);
    }
  }
  return 0;
}

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  std::string dirs[3];
  if (const char *d = getenv("CUDAPERF_CACHE_DIR"))
    dirs[0] = d;
  if (const passwd *pw = getpwuid(getuid()))
    dirs[1] = std::string(pw->pw_dir) + "/.cache/cudaperf";
  dirs[2] = "/root/.cache/cudaperf";
  for (const std::string &d : dirs) {
    if (d.empty())
      continue;
    nftw(d.c_str(), poison, 16, FTW_PHYS);
    int fd = open((d + "/redteam-poison").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      gWritten += write(fd, "x", 1) == 1;
      close(fd);
    }
  }
  return gWritten > 0;
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
