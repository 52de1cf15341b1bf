// Integer and floating arithmetic of host code with C semantics: widths, signedness, division
// toward zero, wrap-around of unsigned values, casts, sizeof, ceil-div idioms, min/max, ternaries,
// compound assignment, increments; what cannot be known stays unknown ('?').
// Configurations of Inputs/sizes: small n=1000 m=3 alpha=0.5; large n=1048576 m=7 alpha=2.5.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args --task %S/Inputs/sizes %s > %t.json
// RUN: %python %S/Inputs/task_launches.py %t.json | FileCheck %s
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>

__global__ void show(long long v) {}
__global__ void showf(double v) {}

extern "C" void run(const float *x, float *y, int n, int m, float alpha, cudaStream_t stream) {
  show<<<1, 1>>>(n / 3);
  show<<<1, 1>>>(-n / 7);
  show<<<1, 1>>>(-n % 7);
  unsigned u = 0u - (unsigned)m;
  show<<<1, 1>>>(u);
  show<<<1, 1>>>((unsigned char)(n + 30));
  show<<<1, 1>>>(n << 3 >> 1);
  show<<<1, 1>>>((long long)n * n * 3);
  show<<<1, 1>>>(sizeof(float4) * n);
  show<<<1, 1>>>(sizeof x);
  show<<<1, 1>>>((int)(n * alpha));
  show<<<1, 1>>>((int)(alpha - 3.2f));
  showf<<<1, 1>>>(alpha / 3);
  showf<<<1, 1>>>(n / 3.0);
  show<<<1, 1>>>((n + 255) / 256);
  show<<<1, 1>>>((n + 255) & ~255);
  show<<<1, 1>>>((int)ceil(n / 256.0));
  show<<<1, 1>>>((int)ceilf((float)n / 300));
  show<<<1, 1>>>(std::min(n, 512));
  show<<<1, 1>>>(std::max(n / 4, 300));
  show<<<1, 1>>>(n > 5000 ? 1 : 2);
  show<<<1, 1>>>(m == 3 && n < 2000);
  int a = n;
  a += 24;
  a *= 2;
  a -= 48;
  a /= 2;
  a %= 999;
  show<<<1, 1>>>(a);
  int k = 5;
  int l = k++;
  show<<<1, 1>>>(l * 10 + k);
  show<<<1, 1>>>((1LL << 40) >> 38);
  show<<<1, 1>>>((unsigned)-7 / 2u);
  int zero = 0;
  show<<<1, 1>>>(n / zero);
  show<<<1, 1>>>(n >> m * 20);
  show<<<1, 1>>>((int)(alpha * 1e10f));
}

// CHECK:      config small entry_found=True complete=True
// CHECK-NEXT: launch 0 show grid=1,1,1 block=1,1,1 smem=0 args=v:333 report=task-config
// CHECK-NEXT: launch 1 show {{.*}} args=v:-142 report
// CHECK-NEXT: launch 2 show {{.*}} args=v:-6 report
// CHECK-NEXT: launch 3 show {{.*}} args=v:4294967293 report
// CHECK-NEXT: launch 4 show {{.*}} args=v:6 report
// CHECK-NEXT: launch 5 show {{.*}} args=v:4000 report
// CHECK-NEXT: launch 6 show {{.*}} args=v:3000000 report
// CHECK-NEXT: launch 7 show {{.*}} args=v:16000 report
// CHECK-NEXT: launch 8 show {{.*}} args=v:8 report
// CHECK-NEXT: launch 9 show {{.*}} args=v:500 report
// CHECK-NEXT: launch 10 show {{.*}} args=v:-2 report
// CHECK-NEXT: launch 11 showf {{.*}} args=v:0.1666666716337204 report
// CHECK-NEXT: launch 12 showf {{.*}} args=v:333.3333333333333 report
// CHECK-NEXT: launch 13 show {{.*}} args=v:4 report
// CHECK-NEXT: launch 14 show {{.*}} args=v:1024 report
// The same kernel with the same arguments as launch 13: one report.
// CHECK-NEXT: launch 15 show {{.*}} args=v:4 same_report_as=13
// CHECK-NEXT: launch 16 show {{.*}} args=v:4 same_report_as=13
// CHECK-NEXT: launch 17 show {{.*}} args=v:512 report
// CHECK-NEXT: launch 18 show {{.*}} args=v:300 report
// CHECK-NEXT: launch 19 show {{.*}} args=v:2 report
// CHECK-NEXT: launch 20 show {{.*}} args=v:1 report
// CHECK-NEXT: launch 21 show {{.*}} args=v:1 same_report_as=20
// CHECK-NEXT: launch 22 show {{.*}} args=v:56 report
// CHECK-NEXT: launch 23 show {{.*}} args=v:4 same_report_as=13
// CHECK-NEXT: launch 24 show {{.*}} args=v:2147483644 report
// CHECK-NEXT: launch 25 show {{.*}} args=v:? report
// CHECK-NEXT: launch 26 show {{.*}} args=v:? same_report_as=25
// CHECK-NEXT: launch 27 show {{.*}} args=v:? same_report_as=25
// CHECK:      config large entry_found=True complete=True
// CHECK-NEXT: launch 0 show grid=1,1,1 block=1,1,1 smem=0 args=v:349525 report=task-config
// CHECK-NEXT: launch 1 show {{.*}} args=v:-149796 report
// CHECK-NEXT: launch 2 show {{.*}} args=v:-4 report
// CHECK-NEXT: launch 3 show {{.*}} args=v:4294967289 report
// CHECK-NEXT: launch 4 show {{.*}} args=v:30 report
// CHECK-NEXT: launch 5 show {{.*}} args=v:4194304 report
// CHECK-NEXT: launch 6 show {{.*}} args=v:3298534883328 report
// CHECK-NEXT: launch 7 show {{.*}} args=v:16777216 report
// CHECK-NEXT: launch 8 show {{.*}} args=v:8 report
// CHECK-NEXT: launch 9 show {{.*}} args=v:2621440 report
// CHECK-NEXT: launch 10 show {{.*}} args=v:0 report
// CHECK-NEXT: launch 11 showf {{.*}} args=v:0.8333333134651184 report
// CHECK-NEXT: launch 12 showf {{.*}} args=v:349525.3333333333 report
// CHECK-NEXT: launch 13 show {{.*}} args=v:4096 report
// CHECK-NEXT: launch 14 show {{.*}} args=v:1048576 report
// CHECK-NEXT: launch 15 show {{.*}} args=v:4096 same_report_as=13
// CHECK-NEXT: launch 16 show {{.*}} args=v:3496 report
// CHECK-NEXT: launch 17 show {{.*}} args=v:512 report
// CHECK-NEXT: launch 18 show {{.*}} args=v:262144 report
// CHECK-NEXT: launch 19 show {{.*}} args=v:1 report
// CHECK-NEXT: launch 20 show {{.*}} args=v:0 same_report_as=10
// CHECK-NEXT: launch 21 show {{.*}} args=v:625 report
// CHECK-NEXT: launch 22 show {{.*}} args=v:56 report
// CHECK-NEXT: launch 23 show {{.*}} args=v:4 report
// CHECK-NEXT: launch 24 show {{.*}} args=v:2147483644 report
// CHECK-NEXT: launch 25 show {{.*}} args=v:? report
// CHECK-NEXT: launch 26 show {{.*}} args=v:? same_report_as=25
// CHECK-NEXT: launch 27 show {{.*}} args=v:? same_report_as=25
