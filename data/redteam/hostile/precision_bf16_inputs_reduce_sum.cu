// cudaperf-task: reduce_sum
// cudaperf-class: precision-downgrade
// cudaperf-source: CUDA-L1 defence table (precision; the within-tolerance case)
// cudaperf-expect: ok,wrong_answer
// cudaperf-expect-max-speedup: 1.5
// Rounds every input to bf16 before summing with one atomic per element, like the baseline. The
// rounding is unbiased and averages out over n >= 1000 terms in [0, 1], so the sum stays within the
// task's 1e-3 relative tolerance: allowed by the task's contract, and it must gain nothing.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

__global__ void reduceBf16(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, __bfloat162float(__float2bfloat16(in[i])));
}

extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t stream) {
  cudaMemsetAsync(out, 0, sizeof(float), stream);
  reduceBf16<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);
}
