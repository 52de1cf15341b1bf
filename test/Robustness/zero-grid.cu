// A size read through a reference (std::cin >> n) was taken as its initial 0, the grid
// (n + 127) / 128 became 0 and the coalescing analysis divided by it (SIGFPE, issue 14). Whatever
// the launch evaluation says, the analyses get a launch that can run: a launch site that cannot
// launch is a finding (cuda-invalid-launch-config) and is not used (analyzeModule also replaces
// any other configuration that cannot launch, with a note).
// RUN: %expect-exit 0 -- %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.json
// RUN: %python %S/Inputs/bases.py %t.json | FileCheck %s
// RUN: %expect-exit 0 -- %cudaperf-analyze %cuda-builtin-args %s 2>&1 | FileCheck %s --check-prefix=TEXT

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}
// CHECK: scale 12:19 load global 4
// CHECK: scale 12:19 store global 4

// A grid from constants that is 0; and 64-bit signed arithmetic dividing INT64_MIN by -1 (a trap
// on x86 when evaluated naively).
__global__ void divides(long long *p, long long d) {
  long long m = (long long)(-9223372036854775807LL - 1) + threadIdx.x * 0;
  p[m / d + threadIdx.x] = 0;
}

int main() {
  int n = 0;
  float *x = nullptr;
  scale<<<(n + 127) / 128, 128>>>(x, n);
  long long *p = nullptr;
  divides<<<0, 64>>>(p, -1);
  // INT64_MIN / -1 in host code: the launch-site evaluator divided too.
  long long a = -9223372036854775807LL - 1, b = -1;
  long long g = a / b;
  scale<<<g, 128>>>(x, n);
  return 0;
}
// CHECK: divides {{[0-9]+}}:{{[0-9]+}} store global 8
// TEXT-DAG: zero-grid.cu:27:3: error: launch of 'scale' fails before the kernel runs: grid.x is 0
// TEXT-DAG: zero-grid.cu:29:3: error: launch of 'divides' fails before the kernel runs: grid.x is 0
// TEXT-DAG: kernel scale(float *x, int n)
// TEXT-DAG: launch: grid ?, block 128x1x1, dynamic smem 0 B (launch-site-partial)
// TEXT-DAG: kernel divides(long long *p, long long d)
// TEXT-DAG: launch: grid ?, block 256x1x1, dynamic smem 0 B (assumed)
