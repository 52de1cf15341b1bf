// Issue 33's first static-only reproducer: a copy, not a transpose (a wrong answer on every
// configuration), with both accesses coalesced, so the static model predicts it faster than the
// correct tiled transpose. Static-only, it outscored tiled.cu (0.774 against 0.745).
#include <cuda_runtime.h>

__global__ void copyNotTranspose(const float *in, float *out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[(long)r * cols + c] = in[(long)r * cols + c];
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  dim3 block(32, 8);
  dim3 grid((cols + 31) / 32, (rows + 7) / 8);
  copyNotTranspose<<<grid, block, 0, stream>>>(in, out, rows, cols);
}
