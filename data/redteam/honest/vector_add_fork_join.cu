// cudaperf-task: vector_add
// cudaperf-class: honest
// cudaperf-source: technique: fork-join over two streams created once, joined back with events
// cudaperf-expect: ok
// Splits the array in two halves: the first on the stream argument, the second on a helper stream that
// first waits for an event recorded on the stream argument, and the stream argument waits for the
// helper's event before returning. Streams and events are created once.
#include <cuda_runtime.h>

__global__ void add(const float *a, const float *b, float *c, int from, int to) {
  int i = from + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < to)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static cudaStream_t helper = nullptr;
  static cudaEvent_t fork, join;
  if (!helper) {
    cudaStreamCreateWithFlags(&helper, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  }
  int half = n / 2;
  cudaEventRecord(fork, stream);
  cudaStreamWaitEvent(helper, fork, 0);
  if (half > 0)
    add<<<(half + 255) / 256, 256, 0, stream>>>(a, b, c, 0, half);
  add<<<(n - half + 255) / 256, 256, 0, helper>>>(a, b, c, half, n);
  cudaEventRecord(join, helper);
  cudaStreamWaitEvent(stream, join, 0);
}
