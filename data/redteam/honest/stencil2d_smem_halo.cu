// cudaperf-task: stencil2d
// cudaperf-class: honest
// cudaperf-source: technique: shared-memory tile with a one-point halo
// cudaperf-expect: ok
// 32x8 interior tiles loaded with their halo (34x10) into shared memory once; every point then reads
// its neighbours from shared memory. Same summation order as the reference.
#include <cuda_runtime.h>

constexpr int BX = 32, BY = 8;

__global__ void stencilHalo(const float *in, float *out, int rows, int cols) {
  __shared__ float t[BY + 2][BX + 2];
  int c0 = blockIdx.x * BX - 1, r0 = blockIdx.y * BY - 1;
  for (int l = threadIdx.y * BX + threadIdx.x; l < (BX + 2) * (BY + 2); l += BX * BY) {
    int ty = l / (BX + 2), tx = l % (BX + 2), r = r0 + ty, c = c0 + tx;
    t[ty][tx] = r >= 0 && r < rows && c >= 0 && c < cols ? in[(long)r * cols + c] : 0.f;
  }
  __syncthreads();
  int c = c0 + 1 + threadIdx.x, r = r0 + 1 + threadIdx.y;
  if (r >= rows || c >= cols)
    return;
  int y = threadIdx.y + 1, x = threadIdx.x + 1;
  if (r == 0 || c == 0 || r == rows - 1 || c == cols - 1)
    out[(long)r * cols + c] = t[y][x];
  else
    out[(long)r * cols + c] = 0.2f * (t[y][x] + t[y][x - 1] + t[y][x + 1] + t[y - 1][x] + t[y + 1][x]);
}

extern "C" void stencil2d(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  stencilHalo<<<dim3((cols + BX - 1) / BX, (rows + BY - 1) / BY), dim3(BX, BY), 0, stream>>>(in, out, rows, cols);
}
