// A trivially-returning entry point: the launch is behind a condition that is never true, so the
// analyzer, which follows the entry point with the configuration's values, finds no launch.
#include <cuda_runtime.h>

__global__ void transposeNaive(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[(long)c * rows + r] = in[(long)r * cols + c];
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  if (rows < 0) {
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 7) / 8);
    transposeNaive<<<grid, block, 0, stream>>>(in, out, rows, cols);
  }
}
