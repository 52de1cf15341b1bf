// dim3 (constructors with one to three sizes, defaults, .x/.y/.z assignment, copies, block.x in a
// grid), if/else on sizes, for and while loops that launch (a reduction's passes), do-while,
// switch with fall-through, break and continue.
// Configurations of Inputs/sizes: small n=1000 m=3 alpha=0.5; large n=1048576 m=7 alpha=2.5.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args --task %S/Inputs/sizes %s > %t.json
// RUN: %python %S/Inputs/task_launches.py %t.json | FileCheck %s
#include <cuda_runtime.h>

__global__ void tile(float *y, int n) {}
__global__ void pass(const float *in, float *out, int n) {}
__global__ void tag(int t) {}

extern "C" void run(const float *x, float *y, int n, int m, float alpha, cudaStream_t stream) {
  dim3 block(32, 8);
  dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
  tile<<<grid, block, 0, stream>>>(y, n);

  dim3 g2;
  g2.x = n / 1000;
  g2.z = m;
  dim3 b2 = block;
  b2.y = 4;
  tile<<<g2, b2>>>(y, n);
  g2 = dim3(7);
  tile<<<g2, dim3(64, 2, 2)>>>(y, n);

  if (n > 100000) {
    tag<<<1, 128>>>(1);
  } else if (m == 3) {
    tag<<<1, 64>>>(2);
  } else {
    tag<<<1, 32>>>(3);
  }

  // A reduction: passes over ever fewer elements, ping-ponging between buffers.
  int len = n;
  const float *in = x;
  while (len > 1) {
    int blocks = (len + 511) / 512;
    pass<<<blocks, 256, 256 * sizeof(float), stream>>>(in, y + (in == x ? 0 : n), len);
    in = y;
    len = blocks;
  }

  for (int i = 0; i < m; ++i) {
    if (i == 1)
      continue;
    if (i == 4)
      break;
    tag<<<i + 1, 32>>>(10 + i);
  }

  int k = 0;
  do {
    k += 2;
  } while (k < m);
  switch (k) {
  case 4:
    tag<<<1, 1>>>(44);
    // fall through
  case 8:
    tag<<<1, 1>>>(88);
    break;
  default:
    tag<<<1, 1>>>(99);
  }
}

// small: n=1000, m=3. grid (1000+31)/32 = 32, (3+7)/8 = 1.
// CHECK:      config small entry_found=True complete=True
// CHECK-NEXT: launch 0 tile grid=32,1,1 block=32,8,1 smem=0 args=n:1000,y:arg:y+0 report=task-config
// CHECK-NEXT: launch 1 tile grid=1,1,3 block=32,4,1 smem=0
// CHECK-NEXT: launch 2 tile grid=7,1,1 block=64,2,2 smem=0
// CHECK-NEXT: launch 3 tag grid=1,1,1 block=64,1,1 smem=0 args=t:2
// Passes: 1000 -> 2 blocks, 2 -> 1 block; the second pass reads y and writes y + n.
// CHECK-NEXT: launch 4 pass grid=2,1,1 block=256,1,1 smem=1024 args=in:arg:x+0,n:1000,out:arg:y+0
// CHECK-NEXT: launch 5 pass grid=1,1,1 block=256,1,1 smem=1024 args=in:arg:y+0,n:2,out:arg:y+1000
// CHECK-NEXT: launch 6 tag grid=1,1,1 block=32,1,1 smem=0 args=t:10
// CHECK-NEXT: launch 7 tag grid=3,1,1 block=32,1,1 smem=0 args=t:12
// k: 2, 4 (4 >= 3): case 4 falls through to case 8.
// CHECK-NEXT: launch 8 tag grid=1,1,1 block=1,1,1 smem=0 args=t:44
// CHECK-NEXT: launch 9 tag grid=1,1,1 block=1,1,1 smem=0 args=t:88
// No diagnostic: the tail effect of these empty kernels (modelled time 0 us) is silent.
// CHECK-NOT: diagnostic

// large: n=1048576, m=7. grid 32768 x 1; passes 2048, 4, 1 blocks; i = 0, 2, 3 then break at 4;
// k: 2, 4, 6, 8 -> case 8.
// CHECK:      config large entry_found=True complete=True
// CHECK-NEXT: launch 0 tile grid=32768,1,1 block=32,8,1 smem=0
// CHECK-NEXT: launch 1 tile grid=1048,1,7 block=32,4,1 smem=0
// CHECK-NEXT: launch 2 tile grid=7,1,1 block=64,2,2 smem=0
// CHECK-NEXT: launch 3 tag grid=1,1,1 block=128,1,1 smem=0 args=t:1
// CHECK-NEXT: launch 4 pass grid=2048,1,1 block=256,1,1 smem=1024 args=in:arg:x+0,n:1048576,out:arg:y+0
// CHECK-NEXT: launch 5 pass grid=4,1,1 block=256,1,1 smem=1024 args=in:arg:y+0,n:2048,out:arg:y+1048576
// CHECK-NEXT: launch 6 pass grid=1,1,1 block=256,1,1 smem=1024 args=in:arg:y+0,n:4,out:arg:y+1048576
// CHECK-NEXT: launch 7 tag grid=1,1,1 block=32,1,1 smem=0 args=t:10
// CHECK-NEXT: launch 8 tag grid=3,1,1 block=32,1,1 smem=0 args=t:12
// CHECK-NEXT: launch 9 tag grid=4,1,1 block=32,1,1 smem=0 args=t:13
// CHECK-NEXT: launch 10 tag grid=1,1,1 block=1,1,1 smem=0 args=t:88
