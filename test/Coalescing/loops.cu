// Loops: the induction variable is uniform unless it depends on threadIdx; trip counts from
// ScalarEvolution give the executions per thread when the bounds are known; grid-stride loops are
// recognised and coalesced.
// RUN: %cudaperf-analyze %cuda-builtin-args %s 2>&1 | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.json
// RUN: %python %S/Inputs/accesses.py %t.json | FileCheck %s --check-prefix=JSON
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json --launch=rowPerThread::128 --param=rowPerThread:n=64 --launch=gridStride:264:256 --param=gridStride:n=4194304 %s > %t.known.json
// RUN: %python %S/Inputs/accesses.py %t.known.json | FileCheck %s --check-prefix=KNOWN

// Each thread sums its own row: lanes are n floats apart.
__global__ void rowPerThread(const float *a, float *out, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int j = 0; j < n; ++j)
    s += a[r * n + j];
  // CHECK: :[[@LINE-1]]:10: warning: global load of 4-byte elements may touch up to 32 sectors {{.*}} depends on 'n'{{.*}} [cuda-uncoalesced-access]
  out[r] = s;
}
// JSON: rowPerThread 15:10 load 4 parameter-dependent sectors=32 ideal=4 exec=- coef=4096,0,0
// (4 x 1 + 4 x 64) ideal sectors for (4 x 1 + 32 x 64) predicted:
// KNOWN: rowPerThread 15:10 load 4 strided sectors=32 ideal=4 exec=64 coef=256,0,0
// KNOWN: rowPerThread efficiency=0.13

// Each thread sums a column of a 4096 x 1024 matrix: lanes read neighbours on every iteration.
__global__ void columnPerThread(const float *a, float *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int r = 0; r < 4096; ++r)
    s += a[r * 1024 + c];
  out[c] = s;
}
// JSON: columnPerThread 29:10 load 4 coalesced sectors=4 ideal=4 exec=4096 coef=4,0,0
// JSON: columnPerThread efficiency=1

__global__ void gridStride(const double *in, double *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = 2.0 * in[i];
}
// JSON: gridStride 37:20 load 8 coalesced sectors=8 ideal=8 exec=- coef=8,0,0 grid-stride
// JSON: gridStride 37:12 store 8 coalesced sectors=8 ideal=8 exec=- coef=8,0,0 grid-stride
// 4194304 / (264 * 256) rounded up for thread 0:
// KNOWN: gridStride 37:20 load 8 coalesced sectors=8 ideal=8 exec=63 coef=8,0,0 grid-stride
