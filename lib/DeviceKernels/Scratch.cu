#include "Preload.h"
#include "cudaperf/DeviceKernels/DeviceKernels.h"

namespace cudaperf::devicekernels {

DeviceScratch::~DeviceScratch() {
  if (device_)
    cudaFree(device_);
  if (host_)
    cudaFreeHost(host_);
}

cudaError_t DeviceScratch::init(cudaStream_t stream) {
  stream_ = stream;
  if (!device_)
    if (cudaError_t e = cudaMalloc(&device_, kBytes))
      return e;
  if (!host_)
    if (cudaError_t e = cudaMallocHost(&host_, kBytes))
      return e;
  return cudaSuccess;
}

cudaError_t preloadKernels() {
  for (cudaError_t (*load)() : {preloadFillKernels, preloadCompareKernels, preloadByteCheckKernels})
    if (cudaError_t e = load())
      return e;
  return cudaSuccess;
}

} // namespace cudaperf::devicekernels
