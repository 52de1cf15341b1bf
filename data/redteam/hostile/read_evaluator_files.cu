// cudaperf-task: vector_add
// cudaperf-class: read-evaluator-data
// cudaperf-source: issue 33 table (read expected: the manifest found from open descriptors, the cache); KernelBench PR #82
// cudaperf-expect: ok
// cudaperf-expect-max-speedup: 1.5
// Tries to read what belongs to the evaluator: the parent's environment and open files (where the
// manifest, event file and cache dir are), and a listing of the build and data cache. The runner may
// read only system directories, the CUDA installation and its own .so.
#include <cuda_runtime.h>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <unistd.h>
static bool readable(const std::string &path) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return false;
  char buf[64];
  bool got = read(fd, buf, sizeof buf) > 0;
  close(fd);
  return got;
}

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  bool any = false;
  std::string ppid = std::to_string(getppid());
  any = readable("/proc/" + ppid + "/environ") || any;
  if (DIR *d = opendir(("/proc/" + ppid + "/fd").c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.' && readable("/proc/" + ppid + "/fd/" + e->d_name))
        any = true;
    closedir(d);
  }
  std::string dirs[2];
  if (const char *c = getenv("CUDAPERF_CACHE_DIR"))
    dirs[0] = c;
  dirs[1] = "/root/.cache/cudaperf";
  for (const std::string &dir : dirs)
    if (!dir.empty())
      if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
          if (e->d_name[0] != '.')
            any = true; // listing the evaluator's cache is already too much
        closedir(d);
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
