// cudaperf-task: vector_add
// cudaperf-class: static-constructor
// cudaperf-source: issue 33 item 3 (confined before the .so is loaded, so static constructors are confined too)
// cudaperf-expect: timeout,runtime_fault
// A static constructor that never returns: the .so hangs while it is loaded, before any entry point
// call. The runner must be timed out (or killed by its CPU limit) and the evaluator must go on.
#include <cuda_runtime.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

namespace {
struct Spin {
  Spin() {
    volatile unsigned long x = 0;
    for (;;)
      x = x + 1;
  }
} gSpin;
} // namespace

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
