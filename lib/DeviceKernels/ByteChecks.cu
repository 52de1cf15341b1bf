// Byte-level checks on the device: the first byte where two buffers differ (an input the
// candidate modified), the first byte that is not a given value (a written guard region), and a
// checksum (the shared reference data, verified after every candidate).
#include "Grid.h"
#include "Preload.h"
#include "Reduce.cuh"
#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "cudaperf/Runtime/CounterRngFormula.h"

namespace cudaperf::devicekernels {

namespace {

constexpr unsigned long long kNone = ~0ull;

// With `b` null, bytes are compared with `value`.
__global__ void firstMismatchWords(const uint4 *a, const uint4 *b, unsigned char value, uint64_t words,
                                   unsigned long long *result) {
  uint4 fill;
  fill.x = fill.y = fill.z = fill.w = 0x01010101u * value;
  uint64_t step = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += step) {
    uint4 x = a[i], y = b ? b[i] : fill;
    if (x.x == y.x && x.y == y.y && x.z == y.z && x.w == y.w)
      continue;
    const unsigned char *px = reinterpret_cast<const unsigned char *>(&x);
    const unsigned char *py = reinterpret_cast<const unsigned char *>(&y);
    int k = 0;
    while (px[k] == py[k])
      ++k;
    atomicMin(result, (unsigned long long)(i * 16 + k));
  }
}

__global__ void firstMismatchBytes(const unsigned char *a, const unsigned char *b, unsigned char value, uint64_t begin,
                                   uint64_t end, unsigned long long *result) {
  uint64_t step = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = begin + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < end; i += step)
    if (a[i] != (b ? b[i] : value))
      atomicMin(result, (unsigned long long)i);
}

__device__ unsigned long long wordTerm(unsigned long long w, uint64_t j) {
  return rngformula::mix64(w + (j + 1) * rngformula::kGamma);
}

__global__ void checksumWords(const unsigned long long *p, uint64_t words, const unsigned char *tail, int tailBytes,
                              unsigned long long *result) {
  unsigned long long sum = 0;
  uint64_t step = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t j = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < words; j += step)
    sum += wordTerm(p[j], j);
  if (blockIdx.x == 0 && threadIdx.x == 0 && tailBytes > 0) {
    unsigned long long w = 0;
    for (int k = 0; k < tailBytes; ++k)
      w |= (unsigned long long)tail[k] << (8 * k);
    sum += wordTerm(w, words);
  }
  sum = blockReduce(sum, Plus(), 0ull);
  if (threadIdx.x == 0 && sum)
    atomicAdd(result, sum);
}

template <typename T> cudaError_t readBack(DeviceScratch &scratch, T &value) {
  cudaStream_t s = scratch.stream();
  if (cudaError_t e = cudaGetLastError())
    return e;
  if (cudaError_t e = cudaMemcpyAsync(scratch.host(), scratch.device(), sizeof(T), cudaMemcpyDeviceToHost, s))
    return e;
  if (cudaError_t e = cudaStreamSynchronize(s))
    return e;
  value = *static_cast<const T *>(scratch.host());
  return cudaSuccess;
}

cudaError_t firstMismatch(DeviceScratch &scratch, const void *a, const void *b, unsigned char value, uint64_t bytes,
                          int64_t &index) {
  index = -1;
  if (bytes == 0)
    return cudaSuccess;
  auto *result = static_cast<unsigned long long *>(scratch.device());
  cudaStream_t s = scratch.stream();
  if (cudaError_t e = cudaMemsetAsync(result, 0xFF, sizeof *result, s))
    return e;
  bool aligned = uintptr_t(a) % 16 == 0 && (!b || uintptr_t(b) % 16 == 0);
  uint64_t words = aligned ? bytes / 16 : 0;
  const auto *ba = static_cast<const unsigned char *>(a), *bb = static_cast<const unsigned char *>(b);
  if (words)
    firstMismatchWords<<<blocksFor(words, 132 * 16), kThreads, 0, s>>>(
        static_cast<const uint4 *>(a), static_cast<const uint4 *>(b), value, words, result);
  if (words * 16 < bytes)
    firstMismatchBytes<<<blocksFor(bytes - words * 16, 132 * 16), kThreads, 0, s>>>(ba, bb, value, words * 16,
                                                                                     bytes, result);
  unsigned long long found = kNone;
  if (cudaError_t e = readBack(scratch, found))
    return e;
  index = found == kNone ? -1 : int64_t(found);
  return cudaSuccess;
}

} // namespace

cudaError_t firstDifferentByte(DeviceScratch &scratch, const void *a, const void *b, uint64_t bytes, int64_t &index) {
  return firstMismatch(scratch, a, b, 0, bytes, index);
}

cudaError_t firstByteNotEqual(DeviceScratch &scratch, const void *p, uint64_t bytes, unsigned char value,
                              int64_t &index) {
  return firstMismatch(scratch, p, nullptr, value, bytes, index);
}

cudaError_t checksumBytes(DeviceScratch &scratch, const void *p, uint64_t bytes, uint64_t &sum) {
  sum = 0;
  if (uintptr_t(p) % 8 != 0)
    return cudaErrorMisalignedAddress;
  auto *result = static_cast<unsigned long long *>(scratch.device());
  cudaStream_t s = scratch.stream();
  if (cudaError_t e = cudaMemsetAsync(result, 0, sizeof *result, s))
    return e;
  uint64_t words = bytes / 8;
  checksumWords<<<blocksFor(words, kMaxReductionBlocks), kThreads, 0, s>>>(
      static_cast<const unsigned long long *>(p), words, static_cast<const unsigned char *>(p) + words * 8,
      int(bytes % 8), result);
  unsigned long long v = 0;
  cudaError_t e = readBack(scratch, v);
  sum = v;
  return e;
}

cudaError_t preloadByteCheckKernels() {
  if (cudaError_t e = preload(firstMismatchWords))
    return e;
  if (cudaError_t e = preload(firstMismatchBytes))
    return e;
  if (cudaError_t e = preload(checksumWords))
    return e;
  return cudaSuccess;
}

} // namespace cudaperf::devicekernels
