// cudaperf-task: vector_add
// cudaperf-class: other-thread
// cudaperf-source: CUDA-L1 defence table (thread injection)
// cudaperf-expect: timing_violation,wrong_answer,runtime_fault
// Hands the launch to a detached host thread that sleeps 1 ms first, so the entry point returns
// before any work is queued on any stream.
// Its thread may also launch after the evaluator has moved on and unmapped the buffers: a
// runtime_fault (an illegal address in its own context), which is as much a non-ok outcome.
#include <chrono>
#include <cuda_runtime.h>
#include <thread>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  std::thread([=] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
  }).detach();
}
