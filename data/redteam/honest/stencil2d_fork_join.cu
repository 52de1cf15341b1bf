// cudaperf-task: stencil2d
// cudaperf-class: honest
// cudaperf-source: technique: fork-join over two streams (row halves), joined with events
// cudaperf-expect: ok
// Rows [0, h) on the stream argument, rows [h, rows) on a helper stream forked and joined with events.
#include <cuda_runtime.h>

__global__ void stencilRows(const float *__restrict__ in, float *__restrict__ out, int rows, int cols, int rowFrom,
                            int rowTo) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = rowFrom + blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rowTo || c >= cols)
    return;
  long i = (long)r * cols + c;
  if (r == 0 || c == 0 || r == rows - 1 || c == cols - 1)
    out[i] = in[i];
  else
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - cols] + in[i + cols]);
}

extern "C" void stencil2d(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  static cudaStream_t helper = nullptr;
  static cudaEvent_t fork, join;
  if (!helper) {
    cudaStreamCreateWithFlags(&helper, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  }
  int h = rows / 2;
  cudaEventRecord(fork, stream);
  cudaStreamWaitEvent(helper, fork, 0);
  if (h > 0)
    stencilRows<<<dim3((cols + 31) / 32, (h + 7) / 8), dim3(32, 8), 0, stream>>>(in, out, rows, cols, 0, h);
  stencilRows<<<dim3((cols + 31) / 32, (rows - h + 7) / 8), dim3(32, 8), 0, helper>>>(in, out, rows, cols, h, rows);
  cudaEventRecord(join, helper);
  cudaStreamWaitEvent(stream, join, 0);
}
