// What the evaluator cannot know, and says so: a size copied from device memory, a size read from
// input (scanf), a result of a function without a body in the file, a condition it cannot decide
// around a launch (evaluation stops; the launches before it are kept), and a loop that never ends
// (the step budget). Launches after an unknown condition whose arms launch nothing still resolve.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args --task %S/Inputs/sizes --config small %s > %t.json
// RUN: %python %S/Inputs/task_launches.py %t.json | FileCheck %s
#include <cstdio>
#include <cuda_runtime.h>

__global__ void k(int v) {}
int external(int n); // defined elsewhere

extern "C" void run(const float *x, float *y, int n, int m, float alpha, cudaStream_t stream) {
  int count = 0;
  cudaMemcpy(&count, y, sizeof(int), cudaMemcpyDeviceToHost);
  k<<<count, 128>>>(1);

  int r = 256;
  scanf("%d", &r);
  k<<<64, r>>>(2);

  k<<<external(n), 32>>>(3);

  int blocks = n / 256;
  if (external(m) > 0) // may or may not run: only blocks can change
    blocks = 1;
  k<<<4, 32>>>(blocks);

  if (external(1) == 7)
    k<<<1, 1>>>(5);
  k<<<1, 1>>>(6); // not reached by the evaluator
}

// CHECK:      config small entry_found=True complete=False reason=the condition at line 29 is not known (returned by 'external' (its body is not in this file)) and what it guards may launch kernels or leave
// CHECK-NEXT: launch 0 k grid=? block=128,1,1 smem=0 args=v:1 report=task-config
// CHECK-NEXT:   unresolved grid: x: depends on 'count' (copied from the device at line 15)
// CHECK-NEXT: launch 1 k grid=64,1,1 block=? smem=0 args=v:2 report=task-config
// CHECK-NEXT:   unresolved block: x: depends on 'r' (may be changed by 'scanf' at line 19)
// CHECK-NEXT: launch 2 k grid=? block=32,1,1 smem=0 args=v:3 report=task-config
// CHECK-NEXT:   unresolved grid: x: returned by 'external' (its body is not in this file)
// The block count may have been changed under the unknown condition at line 25.
// CHECK-NEXT: launch 3 k grid=4,1,1 block=32,1,1 smem=0 args=v:? report=task-config
// CHECK-NOT:  launch 4
