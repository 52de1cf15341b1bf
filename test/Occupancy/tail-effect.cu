// cuda-tail-effect: fewer than 4 waves and a last wave under half full, where the kernel's modelled
// time (the work analysis's roofline, scaled to each launch site's blocks) is at least 5 us: below
// that, launch latency dominates and the check is silent. Blocks of 256 threads with at most 32
// registers: 8 blocks fit per SM, a wave on the H200 (132 SMs) is 1056 blocks. Each thread moves
// 64 elements (8 bytes each): 1100 blocks ~ 34 us, 500 blocks ~ 15 us, 4 blocks ~ 0.1 us.
// REQUIRES: cuda-sdk
// RUN: env CUDAPERF_RESOURCES=nvcc %cudaperf-analyze %cuda-sdk-args \
// RUN:   --checks='-*,cuda-tail-effect' %s 2>&1 >/dev/null \
// RUN:   | FileCheck %s -implicit-check-not='{{warning|error}}:'

__global__ void scale(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  for (int r = 0; r < 64; ++r)
    y[i + r * stride] = a * x[i + r * stride];
}

int main() {
  float *p = nullptr;
  // CHECK: tail-effect.cu:[[@LINE+1]]:3: warning: grid of 1100 blocks of 'scale' runs in 1.04 waves of 1056; the last is 4% full (8 blocks per SM x 132 SMs of H200); a grid of whole waves (a multiple of 1056 blocks, e.g. a grid-stride loop over 1056) keeps every SM busy [cuda-tail-effect]
  scale<<<1100, 256>>>(p, p, 2.0f, 1100 * 256);
  // CHECK: tail-effect.cu:[[@LINE+1]]:3: warning: grid of 500 blocks of 'scale' fills 47% of one wave of 1056 {{.*}} [cuda-tail-effect]
  scale<<<500, 256>>>(p, p, 2.0f, 500 * 256);
  scale<<<2112, 256>>>(p, p, 2.0f, 2112 * 256); // exactly 2 waves
  scale<<<4200, 256>>>(p, p, 2.0f, 4200 * 256); // 3.98 waves, last 98% full
  scale<<<4300, 256>>>(p, p, 2.0f, 4300 * 256); // 4.07 waves: enough to amortize the tail
  scale<<<4, 256>>>(p, p, 2.0f, 4 * 256);       // 0.4% of a wave, but ~0.1 us of work: silent
  return 0;
}
