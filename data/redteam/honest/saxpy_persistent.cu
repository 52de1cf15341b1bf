// cudaperf-task: saxpy
// cudaperf-class: honest
// cudaperf-source: technique: persistent kernel (one wave of blocks, each looping over the array)
// cudaperf-expect: ok
// Launches exactly as many blocks as fit on the device at once (occupancy query, made once) and lets
// each loop over the array with a grid-wide stride.
#include <cuda_runtime.h>

__global__ void saxpyPersistent(int n, float alpha, const float *__restrict__ x, float *__restrict__ y) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    y[i] = fmaf(alpha, x[i], y[i]);
}

extern "C" void saxpy(int n, float alpha, const float *x, float *y, cudaStream_t stream) {
  static int wave = 0;
  if (!wave) {
    int dev, sms, perSm = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, saxpyPersistent, 256, 0);
    wave = sms * (perSm > 0 ? perSm : 1);
  }
  long want = ((long)n + 255) / 256;
  saxpyPersistent<<<(int)(want < wave ? want : wave), 256, 0, stream>>>(n, alpha, x, y);
}
