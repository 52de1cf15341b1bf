// Each file's kernels loaded ahead of their first launch (preloadKernels, DeviceKernels.h).
#pragma once

#include <cuda_runtime_api.h>

namespace cudaperf::devicekernels {

cudaError_t preloadFillKernels();
cudaError_t preloadCompareKernels();
cudaError_t preloadByteCheckKernels();

// Querying a kernel's attributes loads it under lazy loading, as its first launch would.
template <typename Kernel> cudaError_t preload(Kernel kernel) {
  cudaFuncAttributes attributes;
  return cudaFuncGetAttributes(&attributes, kernel);
}

} // namespace cudaperf::devicekernels
