/* cudaperf built-in header: the common subset of cooperative groups for files analysed without a
 * CUDA toolkit -- this_thread_block() with sync(), thread_rank(), size(); tiled_partition<N>() with
 * sync() and the warp shuffles. Grid-wide groups are declared but have no device semantics here. */
#ifndef CUDAPERF_COOPERATIVE_GROUPS_H
#define CUDAPERF_COOPERATIVE_GROUPS_H
#include "cudaperf_cuda_builtin.h"

namespace cooperative_groups {
class thread_block {
public:
  __device__ void sync() const { __syncthreads(); }
  __device__ unsigned thread_rank() const {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  __device__ unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ unsigned num_threads() const { return size(); }
  __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
};
template <unsigned Size> class thread_block_tile {
public:
  __device__ void sync() const { __syncwarp(mask()); }
  __device__ unsigned thread_rank() const { return (threadIdx.x + threadIdx.y * blockDim.x) % Size; }
  __device__ unsigned size() const { return Size; }
  __device__ unsigned num_threads() const { return Size; }
  template <typename T> __device__ T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, Size); }
  template <typename T> __device__ T shfl_down(T v, unsigned d) const { return __shfl_down_sync(mask(), v, d, Size); }
  template <typename T> __device__ T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask(), v, d, Size); }
  template <typename T> __device__ T shfl_xor(T v, unsigned m) const { return __shfl_xor_sync(mask(), v, m, Size); }
  __device__ unsigned ballot(int p) const { return __ballot_sync(mask(), p); }
  __device__ int any(int p) const { return __any_sync(mask(), p); }
  __device__ int all(int p) const { return __all_sync(mask(), p); }

private:
  __device__ unsigned mask() const {
    return Size == 32 ? 0xffffffffu : (((1u << Size) - 1) << ((threadIdx.x % 32) / Size * Size));
  }
};
static __device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }
template <unsigned Size>
static __device__ __forceinline__ thread_block_tile<Size> tiled_partition(const thread_block &) {
  return thread_block_tile<Size>();
}
class grid_group {
public:
  __device__ void sync() const; // grid-wide barrier: needs the toolkit's runtime support
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long size() const;
};
__device__ grid_group this_grid();
template <typename Group> static __device__ __forceinline__ void sync(const Group &g) { g.sync(); }
} // namespace cooperative_groups
#endif
