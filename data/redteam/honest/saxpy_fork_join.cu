// cudaperf-task: saxpy
// cudaperf-class: honest
// cudaperf-source: technique: fork-join over three streams created once, joined back with events
// cudaperf-expect: ok
// Three equal chunks: one on the stream argument and two on helper streams that wait for an event on
// the stream argument; the stream argument waits for both helpers' events before returning.
#include <cuda_runtime.h>

__global__ void saxpyRange(int from, int to, float alpha, const float *x, float *y) {
  int i = from + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < to)
    y[i] = fmaf(alpha, x[i], y[i]);
}

extern "C" void saxpy(int n, float alpha, const float *x, float *y, cudaStream_t stream) {
  static cudaStream_t helpers[2];
  static cudaEvent_t fork, joins[2];
  static bool made = false;
  if (!made) {
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    for (int h = 0; h < 2; ++h) {
      cudaStreamCreateWithFlags(&helpers[h], cudaStreamNonBlocking);
      cudaEventCreateWithFlags(&joins[h], cudaEventDisableTiming);
    }
    made = true;
  }
  int chunk = (n + 2) / 3;
  cudaEventRecord(fork, stream);
  for (int part = 0; part < 3; ++part) {
    int from = part * chunk, to = from + chunk < n ? from + chunk : n;
    if (from >= to)
      continue;
    cudaStream_t s = part == 0 ? stream : helpers[part - 1];
    if (part > 0)
      cudaStreamWaitEvent(s, fork, 0);
    saxpyRange<<<(to - from + 255) / 256, 256, 0, s>>>(from, to, alpha, x, y);
  }
  for (int h = 0; h < 2; ++h) {
    cudaEventRecord(joins[h], helpers[h]);
    cudaStreamWaitEvent(stream, joins[h], 0);
  }
}
