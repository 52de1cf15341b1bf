// 2D and 3D blocks: lanes are consecutive linear thread ids (x fastest), so a 16x16 block puts two
// rows in a warp and an 8x32 block four. With the block from --launch, and with the assumed
// 256x1x1 block (threadIdx.y is then 0 for every thread).
// RUN: %cudaperf-analyze %cuda-builtin-args --launch=rows16::16x16 --launch=rows8::8x32 --launch=rows32::32x8 --launch=columns16::16x16 --launch=volume::8x8x4 --param=rows16:width=2048 --param=rows8:width=2048 --param=rows32:width=2048 --param=columns16:width=2048 %s 2>&1 | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json --launch=rows16::16x16 --launch=rows8::8x32 --launch=rows32::32x8 --launch=columns16::16x16 --launch=volume::8x8x4 --param=rows16:width=2048 --param=rows8:width=2048 --param=rows32:width=2048 --param=columns16:width=2048 %s > %t.json
// RUN: %python %S/Inputs/accesses.py %t.json | FileCheck %s --check-prefix=JSON
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.assumed.json
// RUN: %python %S/Inputs/accesses.py %t.assumed.json | FileCheck %s --check-prefix=ASSUMED

__global__ void rows16(const float *in, float *out, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = in[y * width + x];
}
// Two 64-byte row pieces per warp: 4 sectors, as measured on the H200.
// JSON: rows16 12:24 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,8192,0
// ASSUMED: rows16 12:24 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,4096,0

__global__ void rows8(const float *in, float *out, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = in[y * width + x];
}
// JSON: rows8 20:24 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,8192,0

__global__ void rows32(const float *in, float *out, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = in[y * width + x];
}
// JSON: rows32 26:24 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,8192,0

// threadIdx.x walks a column: 16 lanes in 16 rows, the two threadIdx.y of a warp share sectors.
__global__ void columns16(const float *in, float *out, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = in[x * width + y];
  // CHECK: :[[@LINE-1]]:24: warning: global load of 4-byte elements touches 16 sectors per warp request where 4 would do (4.0x): consecutive threads are 2048 elements (8192 bytes) apart; swap the index order {{.*}} [cuda-uncoalesced-access]
}
// JSON: columns16 33:24 load 4 strided sectors=16 ideal=4 exec=1 coef=8192,4,0
// Without the block shape and the width, the stride is the unknown width: the worst case.
// ASSUMED: columns16 33:24 load 4 parameter-dependent sectors=32 ideal=4

__global__ void volume(const float *in, float *out) {
  int x = blockIdx.x * 8 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y, z = blockIdx.z * 4 + threadIdx.z;
  int i = (z * 256 + y) * 256 + x;
  out[i] = in[i] + 1.0f;
}
// An 8x8x4 block: a warp is 4 rows of 8 floats, 4 sectors.
// JSON: volume 43:12 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,1024,262144
