// cudaperf-task: vector_add
// cudaperf-class: process-escape
// cudaperf-source: issue 33 item 3 (confined before the .so is loaded); issue 33 table (fork escape)
// cudaperf-expect: runtime_fault
// Forks from a static constructor, before the entry point is ever called: the child double-forks
// with setsid and sleeps two minutes. Confinement applied only after loading would miss it.
#include <chrono>
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

static bool gForked = false;
namespace {
struct Escape {
  Escape() {
    pid_t p = fork();
    if (p == 0) {
      setsid();
      if (fork() == 0)
        sleep(120);
      _exit(0);
    }
    gForked = p > 0;
  }
} gEscape;
} // namespace

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  if (gForked) // a breach is never ok
    cudaMemsetAsync(c, 0, n * sizeof(float), stream);
  else
    add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
