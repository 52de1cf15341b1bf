// Unit stride for every width is coalesced: sectors per request = 32 lanes x bytes / 32, never a
// warning (GPUDrano flagged unit-stride 8-byte accesses; they are ideal on current GPUs). The same
// with the assumed block (256) and with a given one.
// RUN: %cudaperf-analyze %cuda-builtin-args %s 2>&1 | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.json
// RUN: %python %S/Inputs/accesses.py %t.json | FileCheck %s --check-prefix=JSON
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json --launch=copyFloat::96 %s > %t.launch.json
// RUN: %python %S/Inputs/accesses.py %t.launch.json | FileCheck %s --check-prefix=LAUNCH
// CHECK-NOT: [cuda-uncoalesced-access]

__global__ void copyChar(const unsigned char *in, unsigned char *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1;
}
// JSON: copyChar 13:12 load 1 coalesced sectors=1 ideal=1 exec=1 coef=1,0,0
// JSON: copyChar 13:10 store 1 coalesced sectors=1 ideal=1 exec=1 coef=1,0,0
// JSON: copyChar efficiency=1

__global__ void copyShort(const short *in, short *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] + 1;
}
// JSON: copyShort 21:12 load 2 coalesced sectors=2 ideal=2
// JSON: copyShort 21:10 store 2 coalesced sectors=2 ideal=2

__global__ void copyFloat(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * 2.0f;
}
// JSON: copyFloat 28:12 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,0,0
// JSON: copyFloat 28:10 store 4 coalesced sectors=4 ideal=4
// A block of 96 threads is three full warps: the same.
// LAUNCH: copyFloat 28:12 load 4 coalesced sectors=4 ideal=4

__global__ void copyDouble(const double *in, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * 2.0;
}
// JSON: copyDouble 37:12 load 8 coalesced sectors=8 ideal=8 exec=1 coef=8,0,0
// JSON: copyDouble 37:10 store 8 coalesced sectors=8 ideal=8

__global__ void copyFloat4(const float4 *in, float4 *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = in[i];
  out[i] = make_float4(v.x * 2.0f, v.y, v.z, v.w);
}
// Four scalar IR accesses of one float4 become one 16-byte access, as the back end emits them.
// JSON: copyFloat4 {{.*}} load 16 coalesced sectors=16 ideal=16 exec=1 coef=16,0,0
// JSON: copyFloat4 {{.*}} store 16 coalesced sectors=16 ideal=16

// A partial warp: 48 threads are a full warp and a half one (2 sectors, also ideal).
__global__ void partialWarp(float *out) { out[blockIdx.x * 48 + threadIdx.x] = 1.0f; }
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json --launch=partialWarp::48 %s > %t.partial.json
// RUN: %python %S/Inputs/accesses.py %t.partial.json | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: partialWarp 52:{{[0-9]+}} store 4 coalesced sectors=3 ideal=3
