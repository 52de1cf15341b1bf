// --occupancy-table: occupancy against block size, the launched size marked with '*'.
// __launch_bounds__(512, 3) lets ptxas give each thread at most 65536 / (3 x 512), rounded down to
// 40 registers, which this kernel fills: 1280 per warp, 12 warps per sub-partition, 48 per SM.
// REQUIRES: cuda-sdk
// RUN: env CUDAPERF_RESOURCES=nvcc %cudaperf-analyze \
// RUN:   %cuda-sdk-args --checks='-*' --occupancy-table %s | FileCheck %s

__global__ void __launch_bounds__(512, 3) pressure(float *out, const float *in, int n) {
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = in[threadIdx.x + i * n];
  for (int k = 0; k < n; ++k) {
    float x = in[k];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = fmaf(acc[i], x, acc[(i + 7) & 63]);
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += acc[i] * (i + 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main() {
  pressure<<<1000, 192>>>(nullptr, nullptr, 8);
  return 0;
}

// CHECK: occupancy of pressure on sm_90 (H200, 132 SMs): 40 registers, 0 B static + 0 B dynamic shared memory [nvcc]
// CHECK-NEXT: block  blocks/SM  warps/SM  occupancy  limiter
// CHECK-NEXT:     32         32        32      50.0%  blocks
// CHECK-NEXT:     64         24        48      75.0%  registers
// CHECK:         160          9        45      70.3%  registers
// CHECK-NEXT: *  192          8        48      75.0%  registers
// CHECK:         512          3        48      75.0%  registers
// CHECK-NOT: {{^ .*  544 }}
