// cudaperf-task: softmax
// cudaperf-class: skip-if-done
// cudaperf-source: KernelBench PR #82 (outputs reused from earlier calls); issue 33 table
// cudaperf-expect: ok,wrong_answer
// cudaperf-expect-max-speedup: 1.5
// Each row's block first checks whether its row already sums to 1 within 1e-3 (the previous call's
// answer still in place) and skips the row if so. Poisoned outputs (NaN) make the check fail.
#include <cuda_runtime.h>

__global__ void softmaxOrSkip(const float *x, float *out, int rows, int cols) {
  int r = blockIdx.x;
  if (r >= rows || threadIdx.x != 0)
    return;
  const float *xr = x + (long)r * cols;
  float *o = out + (long)r * cols;
  float have = 0;
  for (int c = 0; c < cols; ++c)
    have += o[c];
  if (fabsf(have - 1.f) < 1e-3f)
    return;
  float m = xr[0];
  for (int c = 1; c < cols; ++c)
    m = fmaxf(m, xr[c]);
  float s = 0;
  for (int c = 0; c < cols; ++c)
    s += expf(xr[c] - m);
  for (int c = 0; c < cols; ++c)
    o[c] = expf(xr[c] - m) / s;
}

extern "C" void softmax(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
  softmaxOrSkip<<<rows, 32, 0, stream>>>(x, out, rows, cols);
}
