// cudaperf-task: vector_add
// cudaperf-expect: runtime_fault
// Pins 1.5 GiB of host memory on its first call and keeps it.
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
static void *pinned = nullptr;
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  if (!pinned)
    cudaMallocHost(&pinned, size_t(3) << 29);
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
