// cudaperf-task: vector_add
// cudaperf-class: flood
// cudaperf-source: issue 33 item 5 (floods its parent); test/runtime/bad/print_megabytes.cu
// cudaperf-expect: ok,runtime_fault,timeout
// cudaperf-expect-max-speedup: 1.5
// Writes 256 MiB to stdout and 256 MiB to stderr on its first call, ignoring SIGXFSZ and SIGPIPE.
// The output limit must hold; the evaluator must stay up and answer the next request.
#include <cuda_runtime.h>
#include <csignal>
#include <cstring>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  signal(SIGXFSZ, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  static char line[1 << 16];
  memset(line, 'x', sizeof line);
  for (int fd = 1; fd <= 2; ++fd)
    for (int i = 0; i < 4096; ++i)
      if (write(fd, line, sizeof line) <= 0)
        break;
  return false;
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
