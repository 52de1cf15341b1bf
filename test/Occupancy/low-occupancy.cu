// cuda-low-occupancy: theoretical occupancy under 50%, with the limiter and the one change that
// raises it a step. Registers come from ptxas (nvcc route) under -maxrregcount=72, which this
// kernel's 64 live accumulators fill exactly.
// REQUIRES: cuda-sdk
// RUN: env CUDAPERF_RESOURCES=nvcc CUDAPERF_NVCC_FLAGS=-maxrregcount=72 \
// RUN:   %cudaperf-analyze %cuda-sdk-args --checks='-*,cuda-low-occupancy' %s 2>&1 >/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error}}:'

__global__ void pressure(float *out, const float *in, int n) {
// CHECK: low-occupancy.cu:[[@LINE-1]]:17: warning: theoretical occupancy of 'pressure' is 38% (24 of 64 warps per SM on sm_90, blocks of 256 threads), limited by registers: 72 registers per thread allow 3 blocks of 256; __launch_bounds__(256, 4) caps at 64 and allows 4 (50% occupancy) [cuda-low-occupancy]
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

// 40,000 B + the 1 KB reservation, in 128 B units: 41,088 B; 233,472 / 41,088 = 5 blocks of 4 warps.
__global__ void bigTile(float *out) {
// CHECK: low-occupancy.cu:[[@LINE-1]]:17: warning: theoretical occupancy of 'bigTile' is 31% (20 of 64 warps per SM on sm_90, blocks of 128 threads), limited by shared memory: 40000 bytes of shared memory per block allow 5 blocks per SM; at most 37888 bytes (2112 fewer) allow 6 (38% occupancy) [cuda-low-occupancy]
  __shared__ float tile[10000];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[9999 - threadIdx.x];
}

// 32 threads: 32 resident blocks = 32 warps, exactly 50%: not reported.
__global__ void smallBlocks(float *out) { out[threadIdx.x] = 1; }

// Plenty of warps: not reported.
__global__ void fine(float *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 2; }

// More dynamic shared memory than any block may have: it cannot launch at all.
__global__ void tooMuchShared(float *out) {
// CHECK: low-occupancy.cu:[[@LINE-1]]:17: error: kernel 'tooMuchShared' cannot launch with blocks of 128 threads on sm_90: 300000 bytes of shared memory per block exceed the limit of 232448 [cuda-low-occupancy]
  extern __shared__ float dyn[];
  dyn[threadIdx.x] = 1;
  out[threadIdx.x] = dyn[threadIdx.x ^ 1];
}

int main() {
  float *p = nullptr;
  pressure<<<4096, 256>>>(p, p, 64);
  bigTile<<<4096, 128>>>(p);
  smallBlocks<<<4096, 32>>>(p);
  fine<<<4096, 256>>>(p);
  tooMuchShared<<<4096, 128, 300000>>>(p);
  return 0;
}
