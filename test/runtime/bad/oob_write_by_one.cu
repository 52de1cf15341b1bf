// cudaperf-task: vector_add
// cudaperf-expect: runtime_fault
// Writes one element past the end of c: no fault, but the guard bytes change.
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n)
    c[i] = i < n ? a[i] + b[i] : 0.0f;
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  k<<<(n + 256) / 256, 256, 0, s>>>(a, b, c, n);
}
