// Guards the work analysis counts exactly: a guard on the counter of a loop that halves or doubles it
// (shared-memory tree reductions, walked once per iteration), and a lane guard on a global atomic
// (`lane_executions`: once per warp, where `executions_per_thread` says 1).
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args %s > %t.json
// RUN: %python %S/Inputs/guarded_summary.py %t.json | FileCheck %s

// Sequential addressing: 128 + 64 + ... + 1 = 255 adds per block of 256; shared bytes per block:
// 256 stores, 255 x (2 loads + 1 store), 1 load of s[0] = 1,022 accesses of 4 bytes.
__global__ void treeSum(const float *x, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = x[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}
// CHECK: treeSum flops=1020 shared=16352 load:1024 store:4

// Interleaved addressing (a stride that doubles, a divergent guard): the same 255 adds per block.
__global__ void interleavedSum(const float *x, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = x[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (t % (2 * stride) == 0)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}
// CHECK: interleavedSum flops=1020 shared=16352 load:1024 store:4

// One atomic per warp after a shuffle reduction: 4 blocks x 8 warps.
__global__ void warpAtomic(const int *x, int *out) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, v);
}
// CHECK: warpAtomic flops=0 shared=0 load:1024 atomic:32

int main() {
  float *x = nullptr, *out = nullptr;
  int *xi = nullptr, *oi = nullptr;
  treeSum<<<4, 256>>>(x, out);
  interleavedSum<<<4, 256>>>(x, out);
  warpAtomic<<<4, 256>>>(xi, oi);
  return 0;
}
