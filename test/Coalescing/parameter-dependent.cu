// A stride given by a kernel parameter: unknown, the worst case is reported and the warning says
// "may"; known (--param or a constant launch site argument), the value decides.
// RUN: %cudaperf-analyze %cuda-builtin-args %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze %cuda-builtin-args --param=strided:stride=1 %s 2>&1 | FileCheck %s --check-prefix=ONE -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze %cuda-builtin-args --param=strided:stride=2 %s 2>&1 | FileCheck %s --check-prefix=TWO -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json %s > %t.json
// RUN: %python %S/Inputs/accesses.py %t.json | FileCheck %s --check-prefix=JSON
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json --param=strided:stride=2 --param=offset:base=3 %s > %t.known.json
// RUN: %python %S/Inputs/accesses.py %t.known.json | FileCheck %s --check-prefix=KNOWN

__global__ void strided(const float *in, float *out, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * stride];
  // UNKNOWN-DAG: :[[@LINE-1]]:12: warning: global load of 4-byte elements may touch up to 32 sectors per warp request where 4 would do (8.0x): the distance between consecutive threads depends on 'stride', whose value is not known; give it with --param {{.*}} [cuda-uncoalesced-access]
  // TWO-DAG: :[[@LINE-2]]:12: warning: global load of 4-byte elements touches 8 sectors per warp request where 4 would do (2.0x){{.*}} [cuda-uncoalesced-access]
}
// JSON: strided 13:12 load 4 parameter-dependent sectors=32 ideal=4 exec=1 coef=4096,0,0
// KNOWN: strided 13:12 load 4 strided sectors=8 ideal=4 exec=1 coef=8,0,0

// An offset given by a parameter only moves the warp: assumed aligned (value 1024), worst case
// recorded; known to be 3 it is misaligned.
__global__ void offset(const float *in, float *out, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[base + i];
  // With stride=2 no warning here either (the TWO run's -implicit-check-not).
}
// JSON: offset 24:12 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,0,0 worst=5
// KNOWN: offset 24:12 load 4 misaligned sectors=5 ideal=4

// Launched with a constant argument: the launch site gives the value.
__global__ void launched(const float *in, float *out, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * stride];
  // UNKNOWN-DAG: :[[@LINE-1]]:12: warning: global load of 4-byte elements touches 16 sectors per warp request where 4 would do (4.0x){{.*}} [cuda-uncoalesced-access]
  // ONE: :[[@LINE-2]]:12: warning: global load of 4-byte elements touches 16 sectors
  // TWO-DAG: :[[@LINE-3]]:12: warning: global load of 4-byte elements touches 16 sectors
}
// JSON: launched 33:12 load 4 strided sectors=16 ideal=4 exec=1 coef=16,0,0

void host(const float *in, float *out) { launched<<<4096, 256>>>(in, out, 4); }
