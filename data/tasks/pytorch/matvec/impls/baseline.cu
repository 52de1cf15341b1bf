// entry: void matvec(const float *A, const float *B, float *out, int m, int k, cudaStream_t stream)
// One warp per row of A: lanes read consecutive elements, then a shuffle reduction.
#include <cuda_runtime.h>

constexpr int kWarpsPerBlock = 8;

__global__ void matvecWarpPerRow(const float *A, const float *x, float *y, int m, int k) {
  int row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= m)
    return;
  const float *a = A + (long long)row * k;
  float s = 0.f;
  for (int p = lane; p < k; p += 32)
    s += a[p] * x[p];
  for (int offset = 16; offset > 0; offset /= 2)
    s += __shfl_down_sync(0xffffffffu, s, offset);
  if (lane == 0)
    y[row] = s;
}

extern "C" void matvec(const float *A, const float *B, float *out, int m, int k, cudaStream_t stream) {
  matvecWarpPerRow<<<(m + kWarpsPerBlock - 1) / kWarpsPerBlock, kWarpsPerBlock * 32, 0, stream>>>(A, B, out, m, k);
}
