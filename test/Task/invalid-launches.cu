// A launch the runtime rejects is a finding (cuda-invalid-launch-config), is listed with its
// launch errors, and is never analysed: a grid of n / 2048 blocks is 0 for n = 1000, and 64 KiB
// of dynamic shared memory without cudaFuncSetAttribute exceeds the default 48 KiB.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args --task %S/Inputs/sizes %s > %t.json
// RUN: %python %S/Inputs/task_launches.py %t.json | FileCheck %s
#include <cuda_runtime.h>

__global__ void k(float *y, int n) {
  extern __shared__ float s[];
  s[threadIdx.x] = 0;
  y[blockIdx.x] = s[threadIdx.x];
}

extern "C" void run(const float *x, float *y, int n, int m, float alpha, cudaStream_t stream) {
  k<<<n / 2048, 256>>>(y, n);
  k<<<1, 64 * m * 8>>>(y, n);
  k<<<1, 32, 64 * 1024>>>(y, n);
}

// CHECK:      config small entry_found=True complete=True
// CHECK-NEXT: launch 0 k grid=0,1,1 block=256,1,1 smem=0 args=n:1000,y:arg:y+0 no_report
// CHECK-NEXT:   launch_error: grid.x is 0; every dimension must be at least 1
// CHECK-NEXT: launch 1 k grid=1,1,1 block=1536,1,1 smem=0 args=n:1000,y:arg:y+0 no_report
// CHECK-NEXT:   launch_error: block.x is 1536, above the limit of 1024
// CHECK-NEXT: launch 2 k grid=1,1,1 block=32,1,1 smem=65536 args=n:1000,y:arg:y+0 no_report
// CHECK-NEXT:   launch_error: 65536 bytes of dynamic shared memory exceed the 49152 bytes a kernel gets without cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)
// CHECK-DAG:    diagnostic cuda-invalid-launch-config: launch of 'k' fails before the kernel runs: grid.x is 0; every dimension must be at least 1
// CHECK-DAG:    diagnostic cuda-invalid-launch-config: launch of 'k' fails before the kernel runs: block.x is 1536, above the limit of 1024
// CHECK-DAG:    diagnostic cuda-invalid-launch-config: launch of 'k' fails before the kernel runs: 65536 bytes of dynamic shared memory
// For n = 1048576 the grid is 512 blocks.
// CHECK:      config large entry_found=True complete=True
// CHECK-NEXT: launch 0 k grid=512,1,1 block=256,1,1 smem=0 args=n:1048576,y:arg:y+0 report=task-config
// CHECK-NEXT: launch 1 k grid=1,1,1 block=3584,1,1 smem=0 {{.*}} no_report
