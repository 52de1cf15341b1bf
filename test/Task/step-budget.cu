// Long loops: one that launches nothing (a host-side fill) is not run to its end after 100000
// steps -- what it changes becomes unknown and evaluation goes on; one that may launch and
// does not end uses up the step budget: evaluation stops with the reason and the launches so far.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args --task %S/Inputs/sizes --config small %s > %t.json
// RUN: %python %S/Inputs/task_launches.py %t.json | FileCheck %s
#include <cuda_runtime.h>

__global__ void k(int v) {}

extern "C" void run(const float *x, float *y, int n, int m, float alpha, cudaStream_t stream) {
  k<<<1, 32>>>(n);
  long total = 0;
  for (int i = 0; i < n * 100; ++i)
    total += i % 7;
  k<<<2, 32>>>((int)total);
  k<<<3, 32>>>(n + m);
  for (unsigned i = 0; i < 10u || n > 0; ++i)
    if (i == 4000000000u)
      k<<<4, 32>>>(0);
  k<<<5, 32>>>(n);
}

// CHECK:      config small entry_found=True complete=False reason=the step budget of {{[0-9]+}} was used up at line {{1[789]}} (a loop that runs very long or does not end?)
// CHECK-NEXT: launch 0 k grid=1,1,1 block=32,1,1 smem=0 args=v:1000 report=task-config
// CHECK-NEXT: launch 1 k grid=2,1,1 block=32,1,1 smem=0 args=v:? report=task-config
// CHECK-NEXT: launch 2 k grid=3,1,1 block=32,1,1 smem=0 args=v:1003 report=task-config
// CHECK-NOT:  launch 3
// CHECK:      note: the loop at line 13 launches nothing and took more than 100000 steps
