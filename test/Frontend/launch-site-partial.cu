// Issue 14: the constant parts of a launch site are kept when the grid is not constant (origin
// launch-site-partial: the real block, not the assumed 256); a size changed through a reference
// or pointer (std::cin >> n, scanf("%d", &n), a function taking int &) is not a constant, so its
// grid is unknown rather than computed from the initial 0; a grid of 0 blocks from constants is a
// finding and never analysed (no division by zero downstream).
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args %s > %t.json
// RUN: %python %S/Inputs/kernel_launches.py %t.json | FileCheck %s
// RUN: %expect-exit 0 -- %cudaperf-analyze %cuda-builtin-args %s | FileCheck %s --check-prefix=DIAG
#include <cstdio>
#include <iostream>

__global__ void tiled(float *p, int n) { p[threadIdx.y * 32 + threadIdx.x] = n; }
__global__ void fromCin(float *p, int n) { p[blockIdx.x * 128 + threadIdx.x] = n; }
__global__ void fromScanf(float *p, int n) { p[blockIdx.x * 64 + threadIdx.x] = n; }
__global__ void fromReference(float *p, int n) { p[blockIdx.x * 256 + threadIdx.x] = n; }
__global__ void emptyGrid(float *p) { p[threadIdx.x] = 0; }
__global__ void zeroSize(float *p) { p[blockIdx.x * 128 + threadIdx.x] = 1; }

void readSize(int &n) { n = 4096; }

int main(int argc, char **argv) {
  float *p = nullptr;
  dim3 block(32, 8);
  dim3 grid((argc * 1000 + 31) / 32, 4);
  tiled<<<grid, block, 512>>>(p, argc);
  int n = 0;
  std::cin >> n;
  fromCin<<<(n + 127) / 128, 128>>>(p, n);
  int s = 0;
  scanf("%d", &s);
  fromScanf<<<(s + 63) / 64, 64>>>(p, s);
  int r = 0;
  readSize(r);
  fromReference<<<(r + 255) / 256, 256>>>(p, r);
  emptyGrid<<<0, 64>>>(p);
  int zero = 0;
  zeroSize<<<(zero + 127) / 128, 128>>>(p);
  return 0;
}

// CHECK:      tiled {{.*}} launch-site-partial grid=None block=[32, 8, 1] smem=512 params=
// CHECK-NEXT: fromCin {{.*}} launch-site-partial grid=None block=[128, 1, 1] smem=0 params=
// CHECK-NEXT: fromScanf {{.*}} launch-site-partial grid=None block=[64, 1, 1] smem=0 params=
// CHECK-NEXT: fromReference {{.*}} launch-site-partial grid=None block=[256, 1, 1] smem=0 params=
// The sites with a zero grid are not used: the kernels get the assumed block.
// CHECK-NEXT: emptyGrid {{.*}} assumed grid=None block=[256, 1, 1] smem=0 params=
// CHECK-NEXT: zeroSize {{.*}} assumed grid=None block=[256, 1, 1] smem=0 params=

// DIAG-DAG: launch-site-partial.cu:35:3: error: launch of 'emptyGrid' fails before the kernel runs: grid.x is 0; every dimension must be at least 1 [cuda-invalid-launch-config]
// DIAG-DAG: launch-site-partial.cu:37:3: error: launch of 'zeroSize' fails before the kernel runs: grid.x is 0; every dimension must be at least 1 [cuda-invalid-launch-config]
