// cudaperf-task: transpose
// cudaperf-class: honest
// cudaperf-source: technique: shared-memory tile 32x32 (padded), 32x8 threads
// cudaperf-expect: ok
// 32x32 tiles staged through padded shared memory; each thread moves 4 elements each way.
#include <cuda_runtime.h>

constexpr int TD = 32;

__global__ void transposeTile(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TD][TD + 1]; // +1: no bank conflicts on the transposed read
  int c0 = blockIdx.x * TD, r0 = blockIdx.y * TD;
  for (int dy = threadIdx.y; dy < TD; dy += blockDim.y) {
    int r = r0 + dy, c = c0 + threadIdx.x;
    for (int dx = 0; dx < TD; dx += blockDim.x)
      if (r < rows && c + dx < cols && threadIdx.x + dx < TD)
        tile[dy][threadIdx.x + dx] = in[(long)r * cols + c + dx];
  }
  __syncthreads();
  for (int dy = threadIdx.y; dy < TD; dy += blockDim.y) {
    int c = c0 + dy, r = r0 + threadIdx.x;
    for (int dx = 0; dx < TD; dx += blockDim.x)
      if (c < cols && r + dx < rows && threadIdx.x + dx < TD)
        out[(long)c * rows + r + dx] = tile[threadIdx.x + dx][dy];
  }
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  transposeTile<<<dim3((cols + TD - 1) / TD, (rows + TD - 1) / TD), dim3(32, 8), 0, stream>>>(in, out, rows, cols);
}
