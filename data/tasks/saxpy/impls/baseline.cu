// One thread per element.
#include <cuda_runtime.h>

__global__ void saxpyKernel(int n, float alpha, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}

extern "C" void saxpy(int n, float alpha, const float *x, float *y, cudaStream_t stream) {
  saxpyKernel<<<(n + 255) / 256, 256, 0, stream>>>(n, alpha, x, y);
}
