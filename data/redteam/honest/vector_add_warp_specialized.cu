// cudaperf-task: vector_add
// cudaperf-class: honest
// cudaperf-source: technique: warp specialization (producer warps stage tiles in shared memory, consumer warps compute)
// cudaperf-expect: ok
// Each block walks tiles of 1024 elements. Warp 0 and 1 (producers) copy the next tile of a and b into
// one half of a double buffer in shared memory while warps 2-7 (consumers) add the current tile from
// the other half and store it; one __syncthreads per tile hands the buffers over.
#include <cuda_runtime.h>

constexpr int kTile = 1024, kThreads = 256, kProducers = 64;

__global__ void addSpecialized(const float *a, const float *b, float *c, int n) {
  __shared__ float sa[2][kTile], sb[2][kTile];
  int tiles = (n + kTile - 1) / kTile;
  int t = threadIdx.x;
  bool producer = t < kProducers;
  auto load = [&](int tile, int buf) {
    for (int j = t; j < kTile; j += kProducers) {
      long i = (long)tile * kTile + j;
      sa[buf][j] = i < n ? a[i] : 0.f;
      sb[buf][j] = i < n ? b[i] : 0.f;
    }
  };
  int first = blockIdx.x;
  if (producer && first < tiles)
    load(first, 0);
  __syncthreads();
  int buf = 0;
  for (int tile = first; tile < tiles; tile += gridDim.x) {
    int next = tile + gridDim.x;
    if (producer) {
      if (next < tiles)
        load(next, buf ^ 1);
    } else {
      for (int j = t - kProducers; j < kTile; j += kThreads - kProducers) {
        long i = (long)tile * kTile + j;
        if (i < n)
          c[i] = sa[buf][j] + sb[buf][j];
      }
    }
    __syncthreads();
    buf ^= 1;
  }
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  int tiles = (n + kTile - 1) / kTile;
  int blocks = tiles < 1024 ? tiles : 1024;
  addSpecialized<<<blocks, kThreads, 0, stream>>>(a, b, c, n);
}
