// The resources section: ptxas's numbers through nvcc (the file has host code) and through NVRTC
// (a device-only copy), the on-disk cache, the IR estimate, and the occupancy section built on them.
// REQUIRES: cuda-sdk
// RUN: rm -rf %t.cache && mkdir -p %t.cache
// RUN: env CUDAPERF_CACHE_DIR=%t.cache CUDAPERF_RESOURCES=auto %cudaperf-analyze --format=json \
// RUN:   %cuda-sdk-args %s > %t.first.json
// RUN: %python %S/Inputs/resources.py %t.first.json | FileCheck %s --check-prefix=NVCC
// RUN: env CUDAPERF_CACHE_DIR=%t.cache %cudaperf-analyze --format=json %cuda-sdk-args %s > %t.second.json
// RUN: %python %S/Inputs/resources.py %t.second.json | FileCheck %s --check-prefix=CACHED
// RUN: env CUDAPERF_CACHE_DIR=%t.cache CUDAPERF_RESOURCES=nvrtc %cudaperf-analyze --format=json \
// RUN:   %cuda-sdk-args %S/Inputs/device-only.cu > %t.nvrtc.json
// RUN: %python %S/Inputs/resources.py %t.nvrtc.json | FileCheck %s --check-prefix=NVRTC
// RUN: env CUDAPERF_CACHE_DIR=%t.cache CUDAPERF_RESOURCES=estimate %cudaperf-analyze --format=json \
// RUN:   %cuda-sdk-args %s > %t.estimate.json
// RUN: %python %S/Inputs/resources.py %t.estimate.json | FileCheck %s --check-prefix=ESTIMATE

template <int N>
__global__ void reverse(float *a) {
  __shared__ float s[N];
  s[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  a[threadIdx.x] = s[N - 1 - threadIdx.x];
}

__global__ void localArray(float *out, const int *idx) {
  float a[32];
  for (int i = 0; i < 32; ++i) a[idx[i] & 31] = i * out[i]; // run-time indices: a stays in memory
  out[threadIdx.x] = a[idx[threadIdx.x] & 31];
}

int main() {
  float *p = nullptr;
  reverse<128><<<264, 128>>>(p);
  localArray<<<1, 64>>>(p, nullptr);
  return 0;
}

// Registers are ptxas's choice and may move between CUDA releases; the rest is fixed by the source.
// NVCC: localArray source=nvcc cached=False registers={{[0-9]+}} local_bytes=128 static_smem_bytes=0 barriers=0 spill_store_bytes=0
// NVCC: reverse<128> source=nvcc cached=False registers={{[0-9]+}} local_bytes=0 static_smem_bytes=512 barriers=1 spill_store_bytes=0
// NVCC-SAME: occupancy block_size=128 active_blocks_per_sm=16 theoretical=1 limiter=warps grid_blocks=264 waves=0.125
// CACHED: localArray source=nvcc cached=True
// CACHED: reverse<128> source=nvcc cached=True
// NVRTC: reverse<256> source=nvrtc cached=False registers={{[0-9]+}} local_bytes=0 static_smem_bytes=1024 barriers=1
// ESTIMATE: localArray source=estimate cached=None registers={{[0-9]+}} local_bytes=128 static_smem_bytes=0 barriers=0
// ESTIMATE: reverse<128> source=estimate cached=None registers={{[0-9]+}} local_bytes=0 static_smem_bytes=512 barriers=1
