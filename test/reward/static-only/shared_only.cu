// A kernel that works only in shared memory: it launches, but stores nothing an output can see.
#include <cuda_runtime.h>

__global__ void busyWork(const float *in, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  int n = rows * cols;
  busyWork<<<(n + 255) / 256, 256, 0, stream>>>(in, n);
}
