// cudaperf-task: vector_add
// cudaperf-expect: launch_error
// Asks for 1 MiB of dynamic shared memory per block.
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? a[i] + b[i] : 0.0f;
  if (i < n)
    c[i] = tile[threadIdx.x];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  k<<<(n + 255) / 256, 256, 1 << 20, s>>>(a, b, c, n);
}
