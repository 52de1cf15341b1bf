// entry: void gelu_tanh(const float *x, float *out, int batch_size, int dim, cudaStream_t stream)
// One thread per element of the batch_size * dim tensor.
#include <cuda_runtime.h>

__global__ void geluTanhKernel(const float *x, float *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    out[i] = 0.5f * v * (1.f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
  }
}

extern "C" void gelu_tanh(const float *x, float *out, int batch_size, int dim, cudaStream_t stream) {
  long long n = (long long)batch_size * dim;
  geluTanhKernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, out, n);
}
