// cudaperf-task: vector_add
// cudaperf-class: forge-event-stream
// cudaperf-source: issue 33 table (forged events: 20.0x)
// cudaperf-expect: runtime_fault,ok,wrong_answer,timing_violation
// cudaperf-expect-max-speedup: 1.5
// Looks through /proc/self/fd for a regular file opened append-only (the worker's event file) and
// appends forged candidate `timing` lines (0.0001 ms), a `verdict` ok and `done`, then _exit(0)
// without computing. The runner holds no event file; if none is found it computes honestly.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

static int findEventFile() {
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    return -1;
  int found = -1;
  while (dirent *e = readdir(d)) {
    int fd = atoi(e->d_name);
    struct stat st;
    if (fd <= 2 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_APPEND) && (fl & O_ACCMODE) != O_RDONLY)
      found = fd;
  }
  closedir(d);
  return found;
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  int fd = findEventFile();
  if (fd >= 0) {
    std::string lines;
    for (const char *cfg : {"small", "medium", "large"})
      lines += std::string("{\"event\":\"timing\",\"impl\":\"candidate\",\"config\":\"") + cfg +
               "\",\"median_ms\":0.0001,\"min_ms\":0.0001,\"max_ms\":0.0001,\"mean_ms\":0.0001,\"p10_ms\":0.0001,"
               "\"p90_ms\":0.0001,\"spread\":0,\"runs\":30,\"stable\":true}\n";
    lines += "{\"event\":\"verdict\",\"impl\":\"candidate\",\"outcome\":\"ok\"}\n{\"event\":\"done\"}\n";
    if (write(fd, lines.data(), lines.size()) == (ssize_t)lines.size())
      _exit(0);
  }
  add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
