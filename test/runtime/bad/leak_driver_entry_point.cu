// cudaperf-task: vector_add
// cudaperf-expect: runtime_fault
// Allocates 1.5 GiB through the driver's cuMemAlloc, fetched by name from the runtime (so it is
// not linked against libcuda), and never frees it.
#include <cuda.h>
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  using MemAlloc = CUresult (*)(CUdeviceptr *, size_t);
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 12000, cudaEnableDefault, &found) == cudaSuccess && fn) {
    CUdeviceptr p;
    reinterpret_cast<MemAlloc>(fn)(&p, size_t(3) << 29);
  }
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
