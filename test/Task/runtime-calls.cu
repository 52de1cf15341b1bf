// The CUDA runtime calls that decide launches: cudaFuncSetAttribute for large dynamic shared
// memory, scratch from cudaMalloc / cudaMallocAsync (an opaque pointer with a byte size),
// cudaMemsetAsync, cudaLaunchKernel with an argument array, cudaLaunchKernelEx with a launch
// configuration, and device queries (answered for the H200 of --arch=sm_90).
// Configurations of Inputs/sizes: small n=1000 m=3 alpha=0.5; large n=1048576 m=7 alpha=2.5.
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args --task %S/Inputs/sizes %s > %t.json
// RUN: %python %S/Inputs/task_launches.py %t.json | FileCheck %s
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args --task %S/Inputs/sizes --config large %s > %t.large.json
// RUN: %python %S/Inputs/task_launches.py %t.large.json | FileCheck %s --check-prefix=LARGE
#include <cuda_runtime.h>

__global__ void staged(const float *x, float *y, int n) {
  extern __shared__ float buffer[];
  buffer[threadIdx.x] = x[threadIdx.x];
  y[threadIdx.x] = buffer[threadIdx.x];
}
__global__ void partial(const float *x, float *partials, int n) {}
__global__ void combine(const float *partials, float *y, int count) {}

extern "C" void run(const float *x, float *y, int n, int m, float alpha, cudaStream_t stream) {
  int sms = 0, device = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, device);

  size_t smem = (size_t)m * 16 * 1024; // 48 KiB for m = 3, 112 KiB for m = 7
  if (smem > 48 * 1024)
    cudaFuncSetAttribute(staged, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  staged<<<sms, prop.maxThreadsPerBlock / 4, smem, stream>>>(x, y, n);

  float *partials = nullptr;
  int count = 2 * sms;
  cudaMalloc(&partials, count * sizeof(float));
  float *flags;
  cudaMallocAsync((void **)&flags, 64, stream);
  cudaMemsetAsync(partials, 0, count * sizeof(float), stream);
  void *args[] = {&x, &partials, &n};
  cudaLaunchKernel((const void *)partial, dim3(count), dim3(256), args, 0, stream);

  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(count);
  config.dynamicSmemBytes = count * sizeof(float);
  config.stream = stream;
  cudaLaunchKernelEx(&config, combine, (const float *)partials, y + 1, count);
  cudaFree(partials);
}

// CHECK:      config small entry_found=True complete=True
// CHECK-NEXT: launch 0 staged grid=132,1,1 block=256,1,1 smem=49152 args=n:1000,x:arg:x+0,y:arg:y+0 report=task-config
// CHECK-NEXT: launch 1 partial grid=264,1,1 block=256,1,1 smem=0 args=n:1000,partials:scratch#0:1056+0,x:arg:x+0 report
// CHECK-NEXT: launch 2 combine grid=1,1,1 block=264,1,1 smem=1056 args=count:264,partials:scratch#0:1056+0,y:arg:y+1 report
// CHECK:      note: device queries are answered for the H200 (sm_90)

// Above 48 KiB the kernel needs the attribute, which the entry point sets.
// LARGE:      config large entry_found=True complete=True
// LARGE-NEXT: launch 0 staged grid=132,1,1 block=256,1,1 smem=114688 args=n:1048576,x:arg:x+0,y:arg:y+0 smem_limit=114688 report=task-config
// LARGE-NEXT: launch 1 partial
// LARGE-NEXT: launch 2 combine
// LARGE-NOT:  {{^}}config
