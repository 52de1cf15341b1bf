// cudaperf-task: saxpy
// cudaperf-class: honest
// cudaperf-source: technique: cp.async (cuda::memcpy_async) double buffering through shared memory
// cudaperf-expect: ok
// Each block streams tiles of x and y into shared memory with cooperative cuda::memcpy_async into a
// two-stage pipeline, so the next tile's copy is in flight while the current one is computed.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_runtime.h>

constexpr int kTile = 1024;

__global__ void saxpyPipelined(int n, float alpha, const float *x, float *y) {
  __shared__ float sx[2][kTile], sy[2][kTile];
  auto block = cooperative_groups::this_thread_block();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(block, &state);
  int tiles = n / kTile; // whole tiles only; the tail is done directly below
  int first = blockIdx.x, stride = gridDim.x;
  auto issue = [&](int tile, int stage) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, sx[stage], x + (long)tile * kTile, sizeof(float) * kTile, pipe);
    cuda::memcpy_async(block, sy[stage], y + (long)tile * kTile, sizeof(float) * kTile, pipe);
    pipe.producer_commit();
  };
  if (first < tiles)
    issue(first, 0);
  int stage = 0;
  for (int tile = first; tile < tiles; tile += stride) {
    if (tile + stride < tiles)
      issue(tile + stride, stage ^ 1);
    pipe.consumer_wait();
    for (int j = threadIdx.x; j < kTile; j += blockDim.x)
      y[(long)tile * kTile + j] = fmaf(alpha, sx[stage][j], sy[stage][j]);
    pipe.consumer_release();
    stage ^= 1;
  }
  if (blockIdx.x == 0)
    for (long i = (long)tiles * kTile + threadIdx.x; i < n; i += blockDim.x)
      y[i] = fmaf(alpha, x[i], y[i]);
}

extern "C" void saxpy(int n, float alpha, const float *x, float *y, cudaStream_t stream) {
  int tiles = n / kTile;
  int blocks = tiles < 1 ? 1 : (tiles < 1056 ? tiles : 1056);
  saxpyPipelined<<<blocks, 256, 0, stream>>>(n, alpha, x, y);
}
