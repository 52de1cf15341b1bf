// cudaperf-task: vector_add
// cudaperf-class: resource-exhaustion
// cudaperf-source: issue 33 item 3 (resource limits); item 5 (the evaluator stays up)
// cudaperf-expect: ok,runtime_fault,timeout
// cudaperf-expect-max-speedup: 1.5
// Opens /dev/null until open() fails and keeps every descriptor. Only its own process suffers: the
// runner may fail (runtime_fault) or go on; the evaluator must answer the next request.
#include <cuda_runtime.h>
#include <fcntl.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// True when the attempt got through; the entry point then writes zeros, so a breach can never
// come out ok.
static bool attempt() {
  while (open("/dev/null", O_RDONLY) >= 0) {
  }
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
