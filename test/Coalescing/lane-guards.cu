// RUN: %cudaperf-analyze %cuda-builtin-args --checks='-*,cuda-uncoalesced-access,cuda-shared-bank-conflict' %s 2>&1 >/dev/null | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.json
// RUN: %python %S/Inputs/accesses.py %t.json | FileCheck %s --check-prefix=JSON
// RUN: %cudaperf-analyze %cuda-builtin-args %s 2>/dev/null | FileCheck %s --check-prefix=SUMMARY
// Lane guards: an access under `if (threadIdx.x == 0)` or `if (lane < k)` is judged on the lanes
// that run it. Lane 0 alone reading in[threadIdx.x + 1] touches one sector (over 32 lanes it
// would be 5, "misaligned"); 16 lanes writing every second word of shared memory hit 16 banks once
// each (over 32 lanes, a 2-way conflict). The same accesses without the guard are still reported,
// and a bounds check on a parameter (i < n) is not a lane guard.

__global__ void firstLane(const float *in, float *out) {
  if (threadIdx.x == 0)
    out[blockIdx.x] = in[threadIdx.x + 1];
}
// JSON: firstLane 13:23 load 4 broadcast sectors=1 ideal=1
// JSON: allLanes 19:48 load 4 misaligned sectors=5 ideal=4

__global__ void allLanes(const float *in, float *out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x + 1];
// CHECK: :[[@LINE-1]]:48: warning: global load of 4-byte elements touches 5 sectors per warp request where 4 would do {{.*}} [cuda-uncoalesced-access]
}

__global__ void halfWarpShared(const float *in, float *out) {
  __shared__ float s[64];
  unsigned lane = threadIdx.x % 32;
  if (lane < 16)
    s[lane * 2] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x % 64];
}
// SUMMARY: kernel halfWarpShared
// SUMMARY: line 27:17 store shared 4 B conflict-free, 1.00 wavefronts/request

__global__ void fullWarpShared(const float *in, float *out) {
  __shared__ float s[64];
  unsigned lane = threadIdx.x % 32;
  s[lane * 2] = in[threadIdx.x];
// CHECK: :[[@LINE-1]]:15: warning: shared store of 4-byte elements needs 2.00 wavefronts {{.*}} [cuda-shared-bank-conflict]
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x % 64];
}

__global__ void boundsChecked(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i + 1];
// CHECK: :[[@LINE-1]]:14: warning: global load of 4-byte elements touches 5 sectors per warp request where 4 would do {{.*}} [cuda-uncoalesced-access]
}
