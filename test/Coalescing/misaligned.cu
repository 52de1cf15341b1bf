// A constant offset that is not a multiple of 32 bytes: in[i + 1] touches 5 sectors (H200: 5).
// RUN: %cudaperf-analyze %cuda-builtin-args %s 2>&1 | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.json
// RUN: %python %S/Inputs/accesses.py %t.json | FileCheck %s --check-prefix=JSON
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json --launch=shifted::128 %s > %t.launch.json
// RUN: %python %S/Inputs/accesses.py %t.launch.json | FileCheck %s --check-prefix=JSON

__global__ void shifted(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i + 1];
  // CHECK: :[[@LINE-1]]:12: warning: global load of 4-byte elements touches 5 sectors per warp request where 4 would do (1.2x): the warp's first address is 4 bytes past a 32-byte sector boundary; align the start {{.*}} [cuda-uncoalesced-access]
}
// JSON: shifted 10:12 load 4 misaligned sectors=5 ideal=4 exec=1 coef=4,0,0
// JSON: shifted 10:10 store 4 coalesced sectors=4

// A 3-point stencil with i starting at 1: in[i - 1] is aligned; in[i], in[i + 1] and the store are not.
__global__ void stencil(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  out[i] = in[i - 1] + in[i] + in[i + 1];
  // CHECK: :[[@LINE-1]]:10: warning: global store {{.*}} touches 5 sectors {{.*}} 4 bytes past{{.*}} [cuda-uncoalesced-access]
  // CHECK: :[[@LINE-2]]:24: warning: global load {{.*}} touches 5 sectors {{.*}} 4 bytes past{{.*}} [cuda-uncoalesced-access]
  // CHECK: :[[@LINE-3]]:32: warning: global load {{.*}} touches 5 sectors {{.*}} 8 bytes past{{.*}} [cuda-uncoalesced-access]
}
// JSON: stencil 19:12 load 4 coalesced sectors=4
// JSON: stencil 19:24 load 4 misaligned sectors=5
// JSON: stencil 19:32 load 4 misaligned sectors=5
// JSON: stencil 19:10 store 4 misaligned sectors=5
