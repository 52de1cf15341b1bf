// Input sets on the device: the counter-based generator, one element per thread step.
#include "Grid.h"
#include "Preload.h"
#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "cudaperf/Runtime/CounterRngFormula.h"

namespace cudaperf::devicekernels {

namespace {
__global__ void fillKernel(void *dst, uint64_t count, FillSpec spec) {
  uint64_t step = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    rngformula::storeElement(dst, i, spec.dtype, i, spec.kind, spec.a, spec.b, spec.key);
}
// One volatile byte load per stride: the pages of a buffer entered in this context's address
// translation without reading the buffer (nor, at one sector a page, much of L2).
__global__ void touchKernel(const unsigned char *p, uint64_t pages, uint64_t stride) {
  uint64_t step = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pages; i += step)
    (void)*reinterpret_cast<const volatile unsigned char *>(p + i * stride);
}
} // namespace

cudaError_t touchPages(const void *p, uint64_t bytes, uint64_t stride, cudaStream_t stream) {
  if (bytes == 0 || stride == 0)
    return cudaSuccess;
  uint64_t pages = (bytes + stride - 1) / stride;
  touchKernel<<<blocksFor(pages, 132 * 8), kThreads, 0, stream>>>(static_cast<const unsigned char *>(p), pages, stride);
  return cudaGetLastError();
}

cudaError_t fillElements(void *dst, uint64_t count, const FillSpec &spec, cudaStream_t stream) {
  if (count == 0)
    return cudaSuccess;
  fillKernel<<<blocksFor(count, 132 * 32), kThreads, 0, stream>>>(dst, count, spec);
  return cudaGetLastError();
}

cudaError_t preloadFillKernels() {
  if (cudaError_t e = preload(fillKernel))
    return e;
  if (cudaError_t e = preload(touchKernel))
    return e;
  return cudaSuccess;
}

} // namespace cudaperf::devicekernels
