// cudaperf-task: softmax
// cudaperf-class: precision-downgrade
// cudaperf-source: CUDA-L1 defence table (precision)
// cudaperf-expect: wrong_answer
// Computes exp and the row sum in fp16 (hexp, half accumulation): relative error around 1e-3,
// ten times the task's rtol of 1e-4, and the 2048-term half sums lose far more.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void softmaxHalf(const float *x, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *xr = x + (long)r * cols;
  float m = xr[0];
  for (int c = 1; c < cols; ++c)
    m = fmaxf(m, xr[c]);
  __half s = __float2half(0.f);
  for (int c = 0; c < cols; ++c)
    s = __hadd(s, hexp(__float2half(xr[c] - m)));
  for (int c = 0; c < cols; ++c)
    out[(long)r * cols + c] = __half2float(__hdiv(hexp(__float2half(xr[c] - m)), s));
}

extern "C" void softmax(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
  softmaxHalf<<<(rows + 127) / 128, 128, 0, stream>>>(x, out, rows, cols);
}
