// Headers typical files include beyond cuda_runtime.h -- cuda_fp16.h, cuda_bf16.h,
// cooperative_groups.h (which needs CUDA 13's include/cccl) -- work in both header modes and give the
// same kernels, launches, accesses and synchronization facts.
// REQUIRES: cuda-sdk
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args %s | %python %S/Inputs/kernel_facts.py > %t.builtin
// RUN: %cudaperf-analyze --format=json %cuda-sdk-args %s | %python %S/Inputs/kernel_facts.py > %t.sdk
// RUN: diff %t.builtin %t.sdk
// RUN: FileCheck %s --input-file=%t.builtin
// CHECK:      axpyHalf launch-site accesses=global:store:2:coalesced,global:load:2:coalesced,global:load:2:coalesced barriers=0 prims=
// CHECK-NEXT: warpReduce launch-site accesses=global:load:4:coalesced,global:store:4:broadcast barriers=1 prims=shfl_sync
// CHECK-NEXT: bf launch-site accesses=global:store:2:coalesced,global:load:2:coalesced barriers=0 prims=
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void axpyHalf(__half *y, const __half *x, __half a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hfma(a, x[i], y[i]);
}
__global__ void warpReduce(float *out, const float *in) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  float v = in[block.thread_rank() + blockIdx.x * block.size()];
  for (int o = 16; o > 0; o /= 2) v += warp.shfl_down(v, o);
  block.sync();
  if (warp.thread_rank() == 0) out[blockIdx.x * 8 + block.thread_rank() / 32] = v;
}
__global__ void bf(__nv_bfloat16 *p) { p[threadIdx.x] = __hmul(p[threadIdx.x], __float2bfloat16(2.0f)); }
int main() {
  __half *h = nullptr;
  float *f = nullptr;
  axpyHalf<<<4, 256>>>(h, h, __float2half(2.0f), 1024);
  warpReduce<<<4, 256>>>(f, f);
  bf<<<1, 32>>>(nullptr);
}
