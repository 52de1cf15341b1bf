// Strided lanes: stride s floats touches min(32, 4s) sectors (H200: 2 -> 8, 4 -> 16, >= 8 -> 32),
// with a given block and with the assumed one.
// RUN: %cudaperf-analyze %cuda-builtin-args %s 2>&1 | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.json
// RUN: %python %S/Inputs/accesses.py %t.json | FileCheck %s --check-prefix=JSON
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json --launch=stride4::64 %s > %t.launch.json
// RUN: %python %S/Inputs/accesses.py %t.launch.json | FileCheck %s --check-prefix=JSON

__global__ void stride2(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[2 * i];
  // CHECK: :[[@LINE-1]]:12: warning: global load of 4-byte elements touches 8 sectors per warp request where 4 would do (2.0x): consecutive threads are 2 elements (8 bytes) apart; vectorise {{.*}} [cuda-uncoalesced-access]
}
// JSON: stride2 11:12 load 4 strided sectors=8 ideal=4 exec=1 coef=8,0,0
// JSON: stride2 11:10 store 4 coalesced sectors=4
// JSON: stride2 efficiency=0.67

__global__ void stride4(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[4 * i] = in[i];
  // CHECK: :[[@LINE-1]]:14: warning: global store of 4-byte elements touches 16 sectors per warp request where 4 would do (4.0x): consecutive threads are 4 elements (16 bytes) apart; vectorise {{.*}} [cuda-uncoalesced-access]
}
// JSON: stride4 20:14 store 4 strided sectors=16 ideal=4 exec=1 coef=16,0,0

__global__ void stride33(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[33 * i];
  // CHECK: :[[@LINE-1]]:12: warning: global load of 4-byte elements touches 32 sectors per warp request where 4 would do (8.0x): consecutive threads are 33 elements (132 bytes) apart; swap the index order so that threadIdx.x walks the contiguous dimension{{.*}} [cuda-uncoalesced-access]
}
// JSON: stride33 27:12 load 4 strided sectors=32 ideal=4 exec=1 coef=132,0,0

// A double read with stride 2: 16 sectors for 8 needed.
__global__ void doubleStride2(const double *in, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[2 * i];
  // CHECK: :[[@LINE-1]]:12: warning: global load of 8-byte elements touches 16 sectors per warp request where 8 would do (2.0x){{.*}} [cuda-uncoalesced-access]
}
// JSON: doubleStride2 35:12 load 8 strided sectors=16 ideal=8

// Array of structures: each field read is a 12-byte stride.
struct Particle { float x, y, z; };
__global__ void aos(const Particle *p, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = p[i].x + p[i].z;
  // CHECK: :[[@LINE-1]]:{{[0-9]+}}: warning: global load of 4-byte elements touches 12 sectors per warp request where 4 would do (3.0x): consecutive threads are 3 elements (12 bytes) apart (array of structures); store each field in its own array {{.*}} [cuda-uncoalesced-access]
  // CHECK: :[[@LINE-2]]:{{[0-9]+}}: warning: global load of 4-byte elements touches 12 sectors {{.*}} (array of structures){{.*}} [cuda-uncoalesced-access]
}
// JSON: aos 44:{{[0-9]+}} load 4 strided sectors=12 ideal=4 exec=1 coef=12,0,0
// JSON: aos 44:{{[0-9]+}} load 4 strided sectors=12 ideal=4 exec=1 coef=12,0,0
