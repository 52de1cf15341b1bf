// A bounds check that idles lanes of the last warp: sectors_per_request is the whole warp's; the
// launch's average (launch_sectors_per_request, docs/json-schema.md) counts the partial warp's
// fewer sectors, as the counters do (l1tex__t_sectors / requests over the launch). Under --task
// (Inputs/sizes: small n=1000, large n=1048576), one thread per row of 8 floats (a 32-byte stride):
//   125 rows: warps of 32, 32, 32 and 29 lanes: (3 * 32 + 29) / 4 = 31.25 sectors per load request;
//             the store's 29 lanes still span 4 sectors: no launch value;
//    33 rows in blocks of 64: (32 + 1) / 2 = 16.5 per load, (4 + 1) / 2 = 2.5 per store;
//   131072 rows: whole warps only: no launch value (the 33-row launch is the same at both).
// A final reduction over m partials (3 at small) in one block of 1024: only lanes 0-2 enter the loop, one sector
// per request instead of 4, whether the partials are a parameter or a __device__ array (reached through an
// address-space cast of the global).
// RUN: %cudaperf-analyze %cuda-builtin-args --format=json --task %S/../Task/Inputs/sizes --config all %s > %t.json
// RUN: %python %S/Inputs/accesses.py %t.json | FileCheck %s
#include <cuda_runtime.h>

__global__ void rowSum(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0;
    for (int c = 0; c < cols; ++c)
      s += x[r * cols + c];
    y[r] = s;
  }
}

__device__ float partialSums[1024];

__global__ void finalSum(int partials, const float *p, float *out) {
  float v = 0;
  for (int i = threadIdx.x; i < partials; i += blockDim.x)
    v += p[i] + partialSums[i];
  if (threadIdx.x == 0)
    out[0] = v;
}

extern "C" void run(const float *x, float *y, int n, int m, float alpha, cudaStream_t stream) {
  int rows = n / 8;
  rowSum<<<(rows + 255) / 256, 256, 0, stream>>>(x, y, rows, 8);
  rowSum<<<1, 64, 0, stream>>>(x, y, 33, 8);
  finalSum<<<1, 1024, 0, stream>>>(m, x, y);
}
// CHECK: small#0/rowSum 22:10 store 4 coalesced sectors=4 ideal=4 exec=1 coef=4,0,0{{$}}
// CHECK-NEXT: small#0/rowSum 21:12 load 4 strided sectors=32 ideal=4 exec=8 coef=32,0,0 launch=31.25{{$}}
// CHECK: small#1/rowSum 22:10 store 4 coalesced sectors=4 ideal=4 exec=1 coef=4,0,0 launch=2.5{{$}}
// CHECK-NEXT: small#1/rowSum 21:12 load 4 strided sectors=32 ideal=4 exec=8 coef=32,0,0 launch=16.5{{$}}
// CHECK: small#2/finalSum 31:10 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,0,0 launch=1{{$}}
// CHECK-NEXT: small#2/finalSum 31:17 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,0,0 launch=1{{$}}
// CHECK: large#0/rowSum 22:10 store 4 coalesced sectors=4 ideal=4 exec=1 coef=4,0,0{{$}}
// CHECK-NEXT: large#0/rowSum 21:12 load 4 strided sectors=32 ideal=4 exec=8 coef=32,0,0{{$}}
// CHECK: large#1/rowSum 21:12 load 4 strided sectors=32 ideal=4 exec=8 coef=32,0,0 launch=16.5{{$}}
// CHECK: large#2/finalSum 31:10 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,0,0 launch=1{{$}}
// CHECK-NEXT: large#2/finalSum 31:17 load 4 coalesced sectors=4 ideal=4 exec=1 coef=4,0,0 launch=1{{$}}
