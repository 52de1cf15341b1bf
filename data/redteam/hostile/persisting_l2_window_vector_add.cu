// cudaperf-task: vector_add
// cudaperf-class: persisting-l2
// cudaperf-source: GPU MODE reference-kernels (persisting L2 keeps inputs warm across the cache flush)
// cudaperf-expect: ok,timing_violation
// cudaperf-expect-max-speedup: 1.3
// cudaperf-expect-max-config-speedup: 1.4
// Sets aside the largest persisting-L2 carve-out the device allows and puts an access-policy window
// with hitRatio 1 over the inputs on the timed stream, so the flush between timed calls cannot evict
// them. The add is the plain one: any speedup on the large configuration would be the window's.
#include <cuda_runtime.h>

__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

extern "C" void vector_add(const float *a, const float *b, float *c, int n, cudaStream_t stream) {
  static bool carved = false;
  if (!carved) {
    int dev = 0, maxPersist = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&maxPersist, cudaDevAttrMaxPersistingL2CacheSize, dev);
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, maxPersist);
    carved = true;
  }
  // a and b are separate allocations; the window covers the larger span from a (the first input).
  cudaStreamAttrValue v = {};
  v.accessPolicyWindow.base_ptr = const_cast<float *>(a);
  v.accessPolicyWindow.num_bytes = (size_t)n * sizeof(float);
  v.accessPolicyWindow.hitRatio = 1.0f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &v);
  add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
}
