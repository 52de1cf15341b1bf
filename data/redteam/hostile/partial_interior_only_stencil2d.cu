// cudaperf-task: stencil2d
// cudaperf-class: partial-computation
// cudaperf-source: KernelBench PR #82 (partial outputs)
// cudaperf-expect: wrong_answer
// Computes the interior points and skips copying the boundary: the boundary keeps the poison.
#include <cuda_runtime.h>

__global__ void interior(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r <= 0 || c <= 0 || r >= rows - 1 || c >= cols - 1)
    return;
  long i = (long)r * cols + c;
  out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - cols] + in[i + cols]);
}

extern "C" void stencil2d(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  interior<<<dim3((cols + 31) / 32, (rows + 7) / 8), dim3(32, 8), 0, stream>>>(in, out, rows, cols);
}
