// Where each kernel's launch configuration comes from: a constant launch site wins, then --launch,
// then the constant block of a launch site whose grid depends on run-time values
// (launch-site-partial), then __launch_bounds__, then the assumed block of 256. Launch sites whose
// configuration depends on run-time values are listed but not constant.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args %s > %t.json
// RUN: %python %S/Inputs/kernel_launches.py %t.json | FileCheck %s --check-prefix=DEFAULT
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args %s --launch=fromHelper:100:64 \
// RUN:   --launch=bounded::32x4 --param=fromHelper:n=6400 --param=constantSite:n=7 > %t.cli.json
// RUN: %python %S/Inputs/kernel_launches.py %t.cli.json | FileCheck %s --check-prefix=CLI

__global__ void constantSite(float *p, int n) { p[threadIdx.x] = n; }
__global__ void fromHelper(float *p, int n) { p[threadIdx.x] = n; }
__global__ void __launch_bounds__(64) bounded(float *p) { p[threadIdx.x] = 1; }
__global__ void neverLaunched(float *p) { p[threadIdx.x] = 2; }

void helper(float *p, int n) { fromHelper<<<(n + 63) / 64, 64>>>(p, n); }

int main(int argc, char **argv) {
  float *p = nullptr;
  int n = 1 << 10;
  constantSite<<<n / 128, 128>>>(p, n);
  int m = argc * 100; // depends on run-time input
  bounded<<<m, 64>>>(p);
  helper(p, n);
  return 0;
}

// DEFAULT:      constantSite {{.*}} launch-site grid=[8, 1, 1] block=[128, 1, 1] smem=0 params=n:1024
// DEFAULT-NEXT: fromHelper {{.*}} launch-site-partial grid=None block=[64, 1, 1] smem=0 params=
// DEFAULT-NEXT: bounded {{.*}} launch-site-partial grid=None block=[64, 1, 1] smem=0 params= bounds=64/None
// DEFAULT-NEXT: neverLaunched {{.*}} assumed grid=None block=[256, 1, 1] smem=0 params=

// A constant launch site still wins over --launch; --param overrides a launch-site argument.
// CLI:      constantSite {{.*}} launch-site grid=[8, 1, 1] block=[128, 1, 1] smem=0 params=n:7
// CLI-NEXT: fromHelper {{.*}} cli grid=[100, 1, 1] block=[64, 1, 1] smem=0 params=n:6400
// CLI-NEXT: bounded {{.*}} cli grid=None block=[32, 4, 1] smem=0 params= bounds=64/None
// CLI-NEXT: neverLaunched {{.*}} assumed grid=None block=[256, 1, 1] smem=0 params=
