// cuda-register-spills: ptxas's spill report, from NVIDIA's compiler only (the IR estimate cannot
// see spills). The same kernel spills under -maxrregcount=32 and not without a cap.
// REQUIRES: cuda-sdk
// RUN: env CUDAPERF_RESOURCES=nvcc CUDAPERF_NVCC_FLAGS=-maxrregcount=32 \
// RUN:   %cudaperf-analyze %cuda-sdk-args --checks='-*,cuda-register-spills' %s 2>&1 >/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: env CUDAPERF_RESOURCES=nvcc %cudaperf-analyze %cuda-sdk-args \
// RUN:   --checks='-*,cuda-register-spills' %s 2>&1 >/dev/null | count 0
// RUN: env CUDAPERF_RESOURCES=estimate CUDAPERF_NVCC_FLAGS=-maxrregcount=32 %cudaperf-analyze \
// RUN:   %cuda-sdk-args --checks='-*,cuda-register-spills' %s 2>&1 >/dev/null | count 0

__global__ void pressure(float *out, const float *in, int n) {
// CHECK: register-spills.cu:[[@LINE-1]]:17: warning: ptxas spills registers of 'pressure' to local memory on sm_90: {{[1-9][0-9]*}} bytes of spill stores and {{[1-9][0-9]*}} bytes of spill loads per thread at 32 registers; shorten the live ranges {{.*}} [cuda-register-spills]
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

// A local array indexed at run time lives in local memory (a stack frame) without spilling.
__global__ void localArray(float *out, const int *idx) {
  float a[32];
  for (int i = 0; i < 32; ++i) a[idx[i] & 31] = i * out[i]; // run-time indices: a stays in memory
  out[threadIdx.x] = a[idx[threadIdx.x] & 31];
}
