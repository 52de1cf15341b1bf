// cudaperf-task: reduce_sum
// cudaperf-class: batch-and-skip
// cudaperf-source: GPU MODE reference-kernels (batch-and-skip: do the work of several timed calls in one, skip the rest)
// cudaperf-expect: wrong_answer
// Computes on one call in four and returns at once on the other three, leaving the output as it
// is, so three quarters of the timed calls cost nothing. Checks of a random sample of timed calls
// (outputs poisoned before each) find the skipped ones.
#include <cuda_runtime.h>

__global__ void reduceAtomic(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.f;
  for (int o = 16; o; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, v);
}

extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t stream) {
  static unsigned calls = 0;
  if (calls++ % 4 != 0)
    return;
  cudaMemsetAsync(out, 0, sizeof(float), stream);
  reduceAtomic<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);
}
