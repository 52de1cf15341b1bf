// cudaperf-task: reduce_sum
// cudaperf-expect: wrong_answer
// Forgets to zero the result before accumulating into it (the poisoned NaN stays).
#include <cuda_runtime.h>
__global__ void k(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, in[i]);
}
extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t s) {
  k<<<(n + 255) / 256, 256, 0, s>>>(in, out, n);
}
