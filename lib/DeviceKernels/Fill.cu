// Input sets on the device: the counter-based generator, one element per thread step.
#include "Grid.h"
#include "Preload.h"
#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "cudaperf/Runtime/CounterRngFormula.h"

namespace cudaperf::devicekernels {

namespace {
// A normal deviate from the same two 64-bit draws as the host formula's, through single-precision
// logf and cospif: about a tenth of the exact formula's double-precision series (ln, cos, a
// division and a square root per element, rounded once each), so a fresh 3.2 GB input set costs
// what its memory does. Not the host's bits: for sets only compared on the device.
__device__ inline float fastNormal(uint64_t key, uint64_t i) {
  // (0, 1] and [0, 1) with 24 random bits each.
  float u1 = float((rngformula::draw(key, 2 * i) >> 40) + 1) * 0x1.0p-24f;
  float u2 = float(rngformula::draw(key, 2 * i + 1) >> 40) * 0x1.0p-24f;
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

__global__ void fillKernel(void *dst, uint64_t count, FillSpec spec) {
  uint64_t step = uint64_t(gridDim.x) * blockDim.x;
  if (spec.fast && spec.kind == rngformula::kNormal && rngformula::isFloatType(spec.dtype)) {
    for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
      float z = fastNormal(spec.key, i);
      if (spec.dtype == rngformula::kF64)
        static_cast<double *>(dst)[i] = spec.a + spec.b * double(z);
      else
        static_cast<float *>(dst)[i] = float(spec.a) + float(spec.b) * z;
    }
    return;
  }
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
