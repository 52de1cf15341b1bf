// cudaperf-task: saxpy
// cudaperf-class: honest
// cudaperf-source: technique: vectorized float4 loads and stores
// cudaperf-expect: ok
// y = alpha x + y with float4 over the aligned bulk and a scalar tail (n = 4194305 leaves one).
#include <cstdint>
#include <cuda_runtime.h>

__global__ void saxpyVec4(int n4, float alpha, const float4 *x, float4 *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 u = x[i], v = y[i];
    y[i] = make_float4(fmaf(alpha, u.x, v.x), fmaf(alpha, u.y, v.y), fmaf(alpha, u.z, v.z), fmaf(alpha, u.w, v.w));
  }
}

__global__ void saxpyTail(int from, int n, float alpha, const float *x, float *y) {
  int i = from + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = fmaf(alpha, x[i], y[i]);
}

extern "C" void saxpy(int n, float alpha, const float *x, float *y, cudaStream_t stream) {
  bool aligned = ((reinterpret_cast<uintptr_t>(x) | reinterpret_cast<uintptr_t>(y)) & 15) == 0;
  int n4 = aligned ? n / 4 : 0;
  if (n4 > 0)
    saxpyVec4<<<(n4 + 255) / 256, 256, 0, stream>>>(n4, alpha, reinterpret_cast<const float4 *>(x),
                                                     reinterpret_cast<float4 *>(y));
  if (n4 * 4 < n)
    saxpyTail<<<(n - n4 * 4 + 255) / 256, 256, 0, stream>>>(n4 * 4, n, alpha, x, y);
}
