// cudaperf-task: reduce_sum
// cudaperf-class: lazy-evaluation
// cudaperf-source: CUDA-L1 defence table (lazy evaluation); KernelBench PR #82
// cudaperf-expect: wrong_answer
// Computes on its first call for a given n and returns without launching anything afterwards,
// trusting the output to still hold the sum. Poisoned outputs expose it.
#include <cuda_runtime.h>

__global__ void reduceAtomic(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, in[i]);
}

extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t stream) {
  static int doneFor = -1;
  if (doneFor == n)
    return;
  cudaMemsetAsync(out, 0, sizeof(float), stream);
  reduceAtomic<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);
  doneFor = n;
}
