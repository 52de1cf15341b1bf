// cudaperf-task: vector_add
// cudaperf-class: host-compute
// cudaperf-source: CUDA-L1 defence table (host compute); issue 33 (the worker counts copies through the entry points it defines)
// cudaperf-expect: timing_violation,runtime_fault
// Computes on the CPU but copies through libcuda's own cuMemcpyDtoH_v2/cuMemcpyHtoD_v2, looked up with
// dlsym on a handle of libcuda.so.1, so copy counters that interpose the exported names never see
// them. The timed stream is empty; only a clock outside the process sees the time spent.
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <vector>

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  using DtoH = CUresult (*)(void *, CUdeviceptr, size_t);
  using HtoD = CUresult (*)(CUdeviceptr, const void *, size_t);
  static DtoH dtoh = nullptr;
  static HtoD htod = nullptr;
  if (!dtoh) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      dtoh = reinterpret_cast<DtoH>(dlsym(lib, "cuMemcpyDtoH_v2"));
      htod = reinterpret_cast<HtoD>(dlsym(lib, "cuMemcpyHtoD_v2"));
    }
  }
  std::vector<float> ha(n), hb(n);
  size_t bytes = n * sizeof(float);
  if (dtoh && htod) {
    dtoh(ha.data(), (CUdeviceptr)a, bytes);
    dtoh(hb.data(), (CUdeviceptr)b, bytes);
    for (int i = 0; i < n; ++i)
      ha[i] += hb[i];
    htod((CUdeviceptr)c, ha.data(), bytes);
  } else {
    cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i)
      ha[i] += hb[i];
    cudaMemcpy(c, ha.data(), bytes, cudaMemcpyHostToDevice);
  }
}
