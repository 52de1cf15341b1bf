// Each used instantiation of a kernel template is its own kernel, named with its template arguments
// and matched to its device function by mangled name; an unused template yields nothing.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args %s | %python %S/Inputs/kernel_launches.py - | FileCheck %s

template <typename T, int Block>
__global__ void fill(T *p, T v) { p[blockIdx.x * Block + threadIdx.x] = v; }

template <typename T>
__global__ void unused(T *p) { p[0] = T(); }

namespace ops {
template <typename T>
__global__ void twice(T *p) { p[threadIdx.x] *= 2; }
}

int main() {
  float *f = nullptr;
  int *i = nullptr;
  fill<float, 128><<<10, 128>>>(f, 1.5f);
  fill<int, 64><<<20, 64>>>(i, 3);
  ops::twice<<<1, 32>>>(i);
}

// CHECK:      fill<float, 128> _Z4fillIfLi128EEvPT_S0_ launch-site grid=[10, 1, 1] block=[128, 1, 1] smem=0 params=v:1.5
// CHECK-NEXT: fill<int, 64> _Z4fillIiLi64EEvPT_S0_ launch-site grid=[20, 1, 1] block=[64, 1, 1] smem=0 params=v:3
// CHECK-NEXT: ops::twice<int> _ZN3ops5twiceIiEEvPT_ launch-site grid=[1, 1, 1] block=[32, 1, 1] smem=0 params=
// CHECK-EMPTY:
