// One thread per element.
#include <cuda_runtime.h>

__global__ void vectorAddKernel(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  int block = 256;
  vectorAddKernel<<<(n + block - 1) / block, block, 0, stream>>>(a, b, c, n);
}
