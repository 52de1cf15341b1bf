// The `sync` section: barrier counts (in loops, per thread with trip counts, including loops that
// halve their counter), warp-level primitives, and atomics by space with their contention class.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args %s | %python %S/Inputs/sync_summary.py | FileCheck %s

__global__ void treeReduce(float *out, const float *in, unsigned *count) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    out[blockIdx.x] = s[0];
    atomicAdd(count, 1u);
  }
}
// CHECK: treeReduce barriers=2 in_loops=1 per_thread=9 divergent=0 prims=[] atomics={'global': {'same-address': 1}}

__global__ void warpSum(float *out, const float *in, int *hist, const int *keys) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffffu, v, o);
  unsigned any = __ballot_sync(0xffffffffu, v > 0.0f);
  __syncwarp();
  if ((threadIdx.x & 31) == 0)
    out[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = v + any;
  atomicAdd(&hist[threadIdx.x], 1);
  atomicAdd(&hist[keys[threadIdx.x]], 1);
}
// CHECK: warpSum barriers=0 in_loops=0 per_thread=0 divergent=0 prims=['ballot_sync', 'shfl_sync', 'syncwarp'] atomics={'global': {'data-dependent': 1, 'distinct-per-lane': 1}}

__global__ void sharedHistogram(unsigned *bins, const unsigned char *data) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&local[data[blockIdx.x * 256 + threadIdx.x]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
// CHECK: sharedHistogram barriers=2 in_loops=0 per_thread=2 divergent=0 prims=[] atomics={'global': {'distinct-per-lane': 1}, 'shared': {'data-dependent': 1}}

int main() {
  float *f = nullptr;
  unsigned *u = nullptr;
  int *h = nullptr;
  const int *k = nullptr;
  const unsigned char *d = nullptr;
  treeReduce<<<64, 256>>>(f, f, u);
  warpSum<<<64, 256>>>(f, f, h, k);
  sharedHistogram<<<64, 256>>>(u, d);
}
