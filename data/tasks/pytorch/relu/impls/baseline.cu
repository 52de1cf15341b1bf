// entry: void relu(const float *x, float *out, int batch_size, int dim, cudaStream_t stream)
// One thread per element of the batch_size * dim tensor.
#include <cuda_runtime.h>

__global__ void reluKernel(const float *x, float *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    out[i] = v > 0.f ? v : 0.f;
  }
}

extern "C" void relu(const float *x, float *out, int batch_size, int dim, cudaStream_t stream) {
  long long n = (long long)batch_size * dim;
  reluKernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, out, n);
}
