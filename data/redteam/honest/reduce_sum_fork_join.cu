// cudaperf-task: reduce_sum
// cudaperf-class: honest
// cudaperf-source: technique: fork-join over two streams (halves reduced in parallel, joined with an event)
// cudaperf-expect: ok
// Two halves reduced into two scratch sums on the stream argument and a helper stream (forked and
// joined with events); a one-thread kernel on the stream argument adds them into the output.
#include <cuda_runtime.h>

__device__ float warpSum(float v) {
  for (int o = 16; o; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void reduceRange(const float *in, long from, long to, float *sum) {
  float v = 0;
  for (long i = from + blockIdx.x * (long)blockDim.x + threadIdx.x; i < to; i += (long)gridDim.x * blockDim.x)
    v += in[i];
  v = warpSum(v);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(sum, v);
}

__global__ void combine(const float *sums, float *out) { *out = sums[0] + sums[1]; }

extern "C" void reduce_sum(const float *in, float *out, int n, cudaStream_t stream) {
  static cudaStream_t helper = nullptr;
  static cudaEvent_t fork, join;
  static float *sums = nullptr;
  if (!helper) {
    cudaStreamCreateWithFlags(&helper, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
    cudaMalloc(&sums, 2 * sizeof(float));
  }
  long half = n / 2;
  cudaMemsetAsync(sums, 0, 2 * sizeof(float), stream);
  cudaEventRecord(fork, stream);
  cudaStreamWaitEvent(helper, fork, 0);
  int blocks = (int)((half + 2047) / 2048);
  blocks = blocks < 1 ? 1 : (blocks < 264 ? blocks : 264);
  reduceRange<<<blocks, 256, 0, stream>>>(in, 0, half, sums);
  reduceRange<<<blocks, 256, 0, helper>>>(in, half, n, sums + 1);
  cudaEventRecord(join, helper);
  cudaStreamWaitEvent(stream, join, 0);
  combine<<<1, 1, 0, stream>>>(sums, out);
}
