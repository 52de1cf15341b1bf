// cudaperf-task: transpose
// cudaperf-class: honest
// cudaperf-source: technique: fork-join over two streams (top and bottom halves of the rows), joined with events
// cudaperf-expect: ok
// The tiled transpose of rows [0, h) on the stream argument and of rows [h, rows) on a helper stream, forked and joined with events.
#include <cuda_runtime.h>

constexpr int TD = 32;

__global__ void transposeRows(const float *in, float *out, int rows, int cols, int rowFrom, int rowTo) {
  __shared__ float tile[TD][TD + 1];
  int c0 = blockIdx.x * TD, r0 = rowFrom + blockIdx.y * TD;
  for (int dy = threadIdx.y; dy < TD; dy += blockDim.y) {
    int r = r0 + dy, c = c0 + threadIdx.x;
    if (r < rowTo && c < cols)
      tile[dy][threadIdx.x] = in[(long)r * cols + c];
  }
  __syncthreads();
  for (int dy = threadIdx.y; dy < TD; dy += blockDim.y) {
    int c = c0 + dy, r = r0 + threadIdx.x;
    if (c < cols && r < rowTo)
      out[(long)c * rows + r] = tile[threadIdx.x][dy];
  }
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  static cudaStream_t helper = nullptr;
  static cudaEvent_t fork, join;
  if (!helper) {
    cudaStreamCreateWithFlags(&helper, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  }
  int h = (rows / 2 + TD - 1) / TD * TD; // a multiple of the tile
  if (h > rows)
    h = rows;
  cudaEventRecord(fork, stream);
  cudaStreamWaitEvent(helper, fork, 0);
  dim3 block(32, 8), gx((cols + TD - 1) / TD);
  if (h > 0)
    transposeRows<<<dim3(gx.x, (h + TD - 1) / TD), block, 0, stream>>>(in, out, rows, cols, 0, h);
  if (rows > h)
    transposeRows<<<dim3(gx.x, (rows - h + TD - 1) / TD), block, 0, helper>>>(in, out, rows, cols, h, rows);
  cudaEventRecord(join, helper);
  cudaStreamWaitEvent(stream, join, 0);
}
