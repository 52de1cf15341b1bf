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
} // namespace

cudaError_t fillElements(void *dst, uint64_t count, const FillSpec &spec, cudaStream_t stream) {
  if (count == 0)
    return cudaSuccess;
  fillKernel<<<blocksFor(count, 132 * 32), kThreads, 0, stream>>>(dst, count, spec);
  return cudaGetLastError();
}

cudaError_t preloadFillKernels() {
  if (cudaError_t e = preload(fillKernel))
    return e;
  return cudaSuccess;
}

} // namespace cudaperf::devicekernels
