// Calls to host helpers with bodies in the file (by value, through int& out-parameters, returning
// references), function templates, lambdas, several kernels, a kernel launched more than once,
// and kernel templates instantiated from the entry point (the launch names the instantiation).
// Configurations of Inputs/sizes: small n=1000 m=3 alpha=0.5; large n=1048576 m=7 alpha=2.5.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args --task %S/Inputs/sizes %s > %t.json
// RUN: %python %S/Inputs/task_launches.py %t.json | FileCheck %s
#include <cuda_runtime.h>

template <typename T, int Threads> __global__ void scale(T *p, T s, int n) {}
__global__ void other(int n) {}

static int ceilDiv(int a, int b) { return (a + b - 1) / b; }

// Chooses a block and grid for n elements; the block is an out-parameter.
void plan(int n, int &block, int &grid) {
  block = n < 4096 ? 128 : 512;
  grid = ceilDiv(n, block);
  if (grid > 132 * 4)
    grid = 132 * 4;
}

int &largest(int &a, int &b) { return a > b ? a : b; }

template <int Threads, typename T> void launchScale(T *p, T s, int n, cudaStream_t st) {
  scale<T, Threads><<<ceilDiv(n, Threads), Threads, 0, st>>>(p, s, n);
}

int depth(int k) { return k <= 1 ? 1 : 1 + depth(k - 1); }

extern "C" void run(const float *x, float *y, int n, int m, float alpha, cudaStream_t stream) {
  int block = 0, grid = 0;
  plan(n, block, grid);
  scale<float, 0><<<grid, block, 0, stream>>>(y, alpha, n);

  int a = m, b = 5;
  largest(a, b) = 9; // writes b for m = 3, a for m = 7
  other<<<a, b>>>(n);

  launchScale<256>(y, alpha, n, stream);
  launchScale<64>(y + n, 2 * alpha, m, stream);
  launchScale<256>(y, alpha, n, stream); // the same launch as before: one report

  auto launchOther = [&](int blocks) { other<<<blocks, 32, 0, stream>>>(n + blocks); };
  launchOther(m);
  launchOther(2 * m);

  other<<<depth(5), 32>>>(0);
  other<<<depth(40), 32>>>(1); // deeper than the evaluator follows calls
}

// small: plan -> block 128, grid ceil(1000/128) = 8.
// CHECK:      config small entry_found=True complete=True
// CHECK-NEXT: launch 0 scale<float, 0> grid=8,1,1 block=128,1,1 smem=0 args=n:1000,p:arg:y+0,s:0.5 report=task-config
// CHECK-NEXT: launch 1 other grid=3,1,1 block=9,1,1 smem=0 args=n:1000
// CHECK-NEXT: launch 2 scale<float, 256> grid=4,1,1 block=256,1,1 smem=0 args=n:1000,p:arg:y+0,s:0.5
// CHECK-NEXT: launch 3 scale<float, 64> grid=1,1,1 block=64,1,1 smem=0 args=n:3,p:arg:y+1000,s:1
// CHECK-NEXT: launch 4 scale<float, 256> grid=4,1,1 block=256,1,1 smem=0 args=n:1000,p:arg:y+0,s:0.5 same_report_as=2
// CHECK-NEXT: launch 5 other grid=3,1,1 block=32,1,1 smem=0 args=n:1003
// CHECK-NEXT: launch 6 other grid=6,1,1 block=32,1,1 smem=0 args=n:1006
// CHECK-NEXT: launch 7 other grid=5,1,1 block=32,1,1 smem=0 args=n:0
// CHECK-NEXT: launch 8 other grid=? block=32,1,1 smem=0 args=n:1
// CHECK-NEXT:   unresolved grid: x: returned by 'depth' (calls nest deeper than 16)

// large: plan -> block 512, grid min(2048, 528) = 528; largest(7, 5) is a.
// CHECK:      config large entry_found=True complete=True
// CHECK-NEXT: launch 0 scale<float, 0> grid=528,1,1 block=512,1,1 smem=0 args=n:1048576,p:arg:y+0,s:2.5
// CHECK-NEXT: launch 1 other grid=9,1,1 block=5,1,1 smem=0 args=n:1048576
// CHECK-NEXT: launch 2 scale<float, 256> grid=4096,1,1 block=256,1,1 smem=0 args=n:1048576,p:arg:y+0,s:2.5
// CHECK-NEXT: launch 3 scale<float, 64> grid=1,1,1 block=64,1,1 smem=0 args=n:7,p:arg:y+1048576,s:5
// CHECK-NEXT: launch 4 scale<float, 256> {{.*}} same_report_as=2
// CHECK-NEXT: launch 5 other grid=7,1,1 block=32,1,1 smem=0 args=n:1048583
// CHECK-NEXT: launch 6 other grid=14,1,1 block=32,1,1 smem=0 args=n:1048590
// CHECK-NEXT: launch 7 other grid=5,1,1 block=32,1,1 smem=0 args=n:0
