// One thread per row: three sequential passes over the row.
#include <cuda_runtime.h>

__global__ void softmaxRowPerThread(const float *x, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  const float *row = x + (long)r * cols;
  float *o = out + (long)r * cols;
  float m = row[0];
  for (int c = 1; c < cols; ++c)
    m = fmaxf(m, row[c]);
  float s = 0;
  for (int c = 0; c < cols; ++c)
    s += expf(row[c] - m);
  for (int c = 0; c < cols; ++c)
    o[c] = expf(row[c] - m) / s;
}

extern "C" void softmax(const float *x, float *out, int rows, int cols, cudaStream_t stream) {
  softmaxRowPerThread<<<(rows + 127) / 128, 128, 0, stream>>>(x, out, rows, cols);
}
