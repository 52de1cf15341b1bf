// The evaluator's own GPU kernels, so that the data of a check moves at device speed and never
// through the host: input generation (the counter-based generator of docs/task-format.md, bit for
// bit the host reference's), the comparison of outputs with expected values, byte comparisons
// (the input-unchanged check, guard bytes) and checksums (the reference data shared with
// workers is verified after every candidate). Used by the worker and its data holder
// (tools/cudaperf-eval/worker); built with CMake's CUDA language.
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>

namespace cudaperf::devicekernels {

// A small device buffer and a pinned host buffer for reductions' results, on one stream. Every
// operation below is synchronous on that stream: it returns with its result on the host.
class DeviceScratch {
public:
  DeviceScratch() = default;
  DeviceScratch(const DeviceScratch &) = delete;
  DeviceScratch &operator=(const DeviceScratch &) = delete;
  ~DeviceScratch();
  cudaError_t init(cudaStream_t stream);
  cudaStream_t stream() const { return stream_; }
  void *device() const { return device_; }
  void *host() const { return host_; }
  static constexpr size_t kBytes = 64 * 1024;

private:
  cudaStream_t stream_ = nullptr;
  void *device_ = nullptr;
  void *host_ = nullptr;
};

// One pointer argument's generator parameters (runtime::ElementStream as plain numbers: dtype
// and kind are numbered as runtime::Dtype and runtime::Distribution::Kind).
struct FillSpec {
  int dtype = 0;
  int kind = 0;
  double a = 0, b = 0;
  uint64_t key = 0;
  // Normal deviates in single precision from the same draws: the same distribution, not the host
  // reference's bits, about ten times cheaper. For fresh inputs that only the device compares
  // (timed calls and their oracle), never for a set the host reproduces.
  bool fast = false;
};
// Elements [0, count) of the stream into dst (asynchronous on `stream`).
cudaError_t fillElements(void *dst, uint64_t count, const FillSpec &spec, cudaStream_t stream);

// The element-wise check of runtime::compareOutputs: |got - expected| <= atol + rtol * |expected|,
// NaN never passes, equal infinities pass; the worst element is the largest excess over the
// limit, the lowest index among equals.
struct CompareSpec {
  int dtype = 0;
  double atol = 0, rtol = 0;
};
struct CompareResult {
  uint64_t badElements = 0;
  uint64_t nanElements = 0; // NaN, or infinite where the expected value is finite
  int64_t worstIndex = -1;  // -1: every element passed
  double worstExcess = 0;
  double got = 0, expected = 0; // at worstIndex
};
cudaError_t compareElements(DeviceScratch &scratch, const void *got, const void *expected, uint64_t count,
                            const CompareSpec &spec, CompareResult &result);

// The first byte at which a and b differ, or -1.
cudaError_t firstDifferentByte(DeviceScratch &scratch, const void *a, const void *b, uint64_t bytes, int64_t &index);
// The first byte of p that is not `value`, or -1.
cudaError_t firstByteNotEqual(DeviceScratch &scratch, const void *p, uint64_t bytes, unsigned char value,
                              int64_t &index);
// sum over 8-byte words w_j (the last zero-padded) of mix64(w_j + (j + 1) * 0x9E3779B97F4A7C15),
// mod 2^64: order-independent, so it is one parallel pass; any changed word changes it.
cudaError_t checksumBytes(DeviceScratch &scratch, const void *p, uint64_t bytes, uint64_t &sum);

// Loads every kernel above now instead of at its first launch (lazy loading, the CUDA default):
// a worker started ahead does it before its job, so the candidate's time on the GPU has none of it.
cudaError_t preloadKernels();

} // namespace cudaperf::devicekernels
