// cudaperf-task: stencil2d
// cudaperf-class: honest
// cudaperf-source: technique: register sliding window down columns (each row read once per thread)
// cudaperf-expect: ok
// Each thread walks 32 rows of one column, keeping the point above, the centre and the point below in
// registers, so each vertical neighbour is loaded once; horizontal neighbours come through L1.
#include <cuda_runtime.h>

constexpr int kRowsPerThread = 32;

__global__ void stencilSweep(const float *__restrict__ in, float *__restrict__ out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r0 = blockIdx.y * kRowsPerThread;
  if (c >= cols)
    return;
  int r1 = r0 + kRowsPerThread < rows ? r0 + kRowsPerThread : rows;
  float up = r0 > 0 ? in[(long)(r0 - 1) * cols + c] : 0.f, mid = in[(long)r0 * cols + c];
  for (int r = r0; r < r1; ++r) {
    long i = (long)r * cols + c;
    float down = r + 1 < rows ? in[i + cols] : 0.f;
    if (r == 0 || c == 0 || r == rows - 1 || c == cols - 1)
      out[i] = mid;
    else
      out[i] = 0.2f * (mid + in[i - 1] + in[i + 1] + up + down);
    up = mid;
    mid = down;
  }
}

extern "C" void stencil2d(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  stencilSweep<<<dim3((cols + 127) / 128, (rows + kRowsPerThread - 1) / kRowsPerThread), 128, 0, stream>>>(in, out,
                                                                                                          rows, cols);
}
