// cudaperf-task: vector_add
// cudaperf-expect: runtime_fault
// Creates 1.5 GiB of physical memory with the virtual memory API (cuMemCreate, fetched by name)
// and never releases it.
#include <cuda.h>
#include <cuda_runtime.h>
__global__ void k(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t s) {
  using MemCreate = CUresult (*)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion("cuMemCreate", &fn, 12000, cudaEnableDefault, &found) == cudaSuccess && fn) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CUmemGenericAllocationHandle h;
    reinterpret_cast<MemCreate>(fn)(&h, size_t(3) << 29, &prop, 0); // a multiple of the 2 MiB granularity
  }
  k<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n);
}
