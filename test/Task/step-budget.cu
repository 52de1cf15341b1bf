// A loop that does not end uses up the step budget: evaluation stops with the reason and the
// launches made so far.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args --task %S/Inputs/sizes --config small %s > %t.json
// RUN: %python %S/Inputs/task_launches.py %t.json | FileCheck %s
#include <cuda_runtime.h>

__global__ void k(int v) {}

extern "C" void run(const float *x, float *y, int n, int m, float alpha, cudaStream_t stream) {
  k<<<1, 32>>>(n);
  for (unsigned i = 0; i < 10u || n > 0; ++i)
    n = n + 0;
  k<<<2, 32>>>(n);
}

// CHECK:      config small entry_found=True complete=False reason=the step budget of {{[0-9]+}} was used up at line {{1[12]}} (a loop that runs very long or does not end?)
// CHECK-NEXT: launch 0 k grid=1,1,1 block=32,1,1 smem=0 args=v:1000 report=task-config
// CHECK-NOT:  launch 1
