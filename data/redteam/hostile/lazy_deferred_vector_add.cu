// cudaperf-task: vector_add
// cudaperf-class: lazy-evaluation
// cudaperf-source: CUDA-L1 defence table (lazy evaluation: work deferred past the timed interval)
// cudaperf-expect: wrong_answer,timing_violation
// Each call only launches the previous call's add (on the previous call's buffers) and remembers its
// own arguments for the next call: the answer of call k appears during call k+1. A check right after
// a call sees the poisoned output.
#include <cuda_runtime.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static const float *pa = nullptr, *pb = nullptr;
  static float *pc = nullptr;
  static int pn = 0;
  if (pc)
    add<<<(pn + 255) / 256, 256, 0, stream>>>(pa, pb, pc, pn);
  pa = a;
  pb = b;
  pc = c;
  pn = n;
}
