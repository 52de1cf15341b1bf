// Outputs against expected values on the device: counts of wrong and NaN elements and the worst
// element, with exactly the host rule of runtime::compareOutputs (each operation rounded once,
// as the host computes it), in two passes: per-block partial results, then one block.
#include "Grid.h"
#include "Preload.h"
#include "Reduce.cuh"
#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "cudaperf/Runtime/CounterRngFormula.h"

#include <cmath>

namespace cudaperf::devicekernels {

namespace {

namespace rf = rngformula;

struct Worst {
  double excess;
  long long index; // -1: none
};

struct Counters {
  unsigned long long bad, nan;
};

// Scratch layout: counters, per-block partials, the final result.
struct Layout {
  Counters counters;
  Worst partial[kMaxReductionBlocks];
  CompareResult result;
};
static_assert(sizeof(Layout) <= DeviceScratch::kBytes, "scratch too small");

__device__ double loadAsDouble(const void *p, int dtype, uint64_t i) {
  switch (dtype) {
  case rf::kF32: return double(static_cast<const float *>(p)[i]);
  case rf::kF64: return static_cast<const double *>(p)[i];
  case rf::kI32: return double(static_cast<const int32_t *>(p)[i]);
  case rf::kI64: return __ll2double_rn(static_cast<const long long *>(p)[i]);
  case rf::kU32: return double(static_cast<const uint32_t *>(p)[i]);
  default: return double(static_cast<const uint8_t *>(p)[i]);
  }
}

__device__ bool better(const Worst &a, const Worst &b) {
  if (a.index < 0)
    return false;
  if (b.index < 0)
    return true;
  return a.excess > b.excess || (a.excess == b.excess && a.index < b.index);
}

__device__ Worst shuffleDown(const Worst &w, int offset) {
  Worst o;
  o.excess = __shfl_down_sync(0xffffffffu, w.excess, offset);
  o.index = __shfl_down_sync(0xffffffffu, w.index, offset);
  return o;
}
struct PickWorst {
  __device__ Worst operator()(const Worst &a, const Worst &b) const { return better(b, a) ? b : a; }
};

__global__ void comparePass(const void *got, const void *expected, uint64_t count, CompareSpec spec, Layout *out) {
  Worst worst{0, -1};
  unsigned long long bad = 0, nan = 0;
  uint64_t step = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    double g = loadAsDouble(got, spec.dtype, i), x = loadAsDouble(expected, spec.dtype, i);
    double diff = fabs(rf::sub(g, x));
    double limit = rf::add(spec.atol, rf::mul(spec.rtol, fabs(x)));
    bool isBad = !(diff <= limit);
    if (isinf(g) && isinf(x) && g == x)
      isBad = false;
    if (!isBad)
      continue;
    ++bad;
    if (isnan(g) || (isinf(g) && !isinf(x)))
      ++nan;
    Worst w{isnan(diff) ? double(INFINITY) : rf::sub(diff, limit), (long long)i};
    if (better(w, worst))
      worst = w;
  }
  // Counts of a block, then one atomic per block.
  unsigned long long blockBad = blockReduce(bad, Plus(), 0ull);
  __syncthreads();
  unsigned long long blockNan = blockReduce(nan, Plus(), 0ull);
  __syncthreads();
  Worst blockWorst = blockReduce(worst, PickWorst(), Worst{0, -1});
  if (threadIdx.x == 0) {
    out->partial[blockIdx.x] = blockWorst;
    if (blockBad)
      atomicAdd(&out->counters.bad, blockBad);
    if (blockNan)
      atomicAdd(&out->counters.nan, blockNan);
  }
}

__global__ void compareFinish(const void *got, const void *expected, unsigned partials, int dtype, Layout *out) {
  Worst w{0, -1};
  for (unsigned b = threadIdx.x; b < partials; b += blockDim.x)
    if (better(out->partial[b], w))
      w = out->partial[b];
  w = blockReduce(w, PickWorst(), Worst{0, -1});
  if (threadIdx.x == 0) {
    CompareResult r;
    r.badElements = out->counters.bad;
    r.nanElements = out->counters.nan;
    r.worstIndex = w.index;
    r.worstExcess = w.index >= 0 ? w.excess : 0;
    if (w.index >= 0) {
      r.got = loadAsDouble(got, dtype, uint64_t(w.index));
      r.expected = loadAsDouble(expected, dtype, uint64_t(w.index));
    }
    out->result = r;
  }
}

} // namespace

cudaError_t compareElements(DeviceScratch &scratch, const void *got, const void *expected, uint64_t count,
                            const CompareSpec &spec, CompareResult &result) {
  auto *layout = static_cast<Layout *>(scratch.device());
  cudaStream_t s = scratch.stream();
  unsigned blocks = blocksFor(count, kMaxReductionBlocks);
  if (cudaError_t e = cudaMemsetAsync(&layout->counters, 0, sizeof(Counters), s))
    return e;
  comparePass<<<blocks, kThreads, 0, s>>>(got, expected, count, spec, layout);
  compareFinish<<<1, kThreads * 4, 0, s>>>(got, expected, blocks, spec.dtype, layout);
  if (cudaError_t e = cudaGetLastError())
    return e;
  if (cudaError_t e = cudaMemcpyAsync(scratch.host(), &layout->result, sizeof(CompareResult),
                                      cudaMemcpyDeviceToHost, s))
    return e;
  if (cudaError_t e = cudaStreamSynchronize(s))
    return e;
  result = *static_cast<const CompareResult *>(scratch.host());
  return cudaSuccess;
}

cudaError_t preloadCompareKernels() {
  if (cudaError_t e = preload(comparePass))
    return e;
  if (cudaError_t e = preload(compareFinish))
    return e;
  return cudaSuccess;
}

} // namespace cudaperf::devicekernels
