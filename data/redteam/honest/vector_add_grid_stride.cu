// cudaperf-task: vector_add
// cudaperf-class: honest
// cudaperf-source: technique: grid-stride loop sized to the device, unrolled by 4
// cudaperf-expect: ok
// A grid of 4 blocks per SM walks the array with a stride of the whole grid; each thread handles four
// elements per step, one grid-width apart, so loads stay coalesced.
#include <cuda_runtime.h>

__global__ void addGridStride(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, int n) {
  long stride = (long)gridDim.x * blockDim.x;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += 4 * stride) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      long j = i + u * stride;
      if (j < n)
        c[j] = a[j] + b[j];
    }
  }
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static int sms = 0;
  if (!sms) {
    int dev;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  }
  long want = ((long)n + 255) / 256;
  int blocks = (int)(want < 4L * sms ? want : 4L * sms);
  addGridStride<<<blocks, 256, 0, stream>>>(a, b, c, n);
}
