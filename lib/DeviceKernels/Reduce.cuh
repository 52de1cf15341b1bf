// Block-wide reductions for the kernels of this library.
#pragma once

namespace cudaperf::devicekernels {

__device__ inline unsigned long long shuffleDown(unsigned long long v, int offset) {
  return __shfl_down_sync(0xffffffffu, v, offset);
}

struct Plus {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const { return a + b; }
};

// The combination of the block's values (valid in thread 0); `identity` fills missing warps. Two
// calls with the same T must be separated by __syncthreads(): they share the staging array. T
// needs a shuffleDown(T, int) overload (found by argument-dependent lookup).
template <typename T, typename Combine> __device__ T blockReduce(T v, Combine combine, T identity) {
  __shared__ T warps[32];
  for (int off = 16; off > 0; off /= 2)
    v = combine(v, shuffleDown(v, off));
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    warps[warp] = v;
  __syncthreads();
  int nWarps = (blockDim.x + 31) / 32;
  if (warp == 0) {
    v = lane < nWarps ? warps[lane] : identity;
    for (int off = 16; off > 0; off /= 2)
      v = combine(v, shuffleDown(v, off));
  }
  return v;
}

} // namespace cudaperf::devicekernels
