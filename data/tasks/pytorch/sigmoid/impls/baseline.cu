// entry: void sigmoid(const float *x, float *out, int batch_size, int dim, cudaStream_t stream)
// One thread per element of the batch_size * dim tensor.
#include <cuda_runtime.h>

__global__ void sigmoidKernel(const float *x, float *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    out[i] = 1.f / (1.f + expf(-v));
  }
}

extern "C" void sigmoid(const float *x, float *out, int batch_size, int dim, cudaStream_t stream) {
  long long n = (long long)batch_size * dim;
  sigmoidKernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, out, n);
}
