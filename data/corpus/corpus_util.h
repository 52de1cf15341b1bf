// Host helpers shared by the measured corpus (data/corpus/*.cu): error checks and random device buffers.
// Inputs are random (never zeros) so that nothing in a measurement depends on special values.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t err_ = (call);                                                                   \
    if (err_ != cudaSuccess) {                                                                   \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

// After every launch: launch errors first, then errors raised while the kernel ran.
#define CHECK_LAUNCH()                   \
  do {                                   \
    CHECK(cudaGetLastError());           \
    CHECK(cudaDeviceSynchronize());      \
  } while (0)

// xorshift32: fast, deterministic, good enough for test data.
inline uint32_t nextRandom(uint32_t& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

template <typename T>
T* deviceAlloc(size_t count) {
  T* p = nullptr;
  CHECK(cudaMalloc(&p, count * sizeof(T)));
  CHECK(cudaMemset(p, 0xff, count * sizeof(T)));  // poison, not zeros
  return p;
}

template <typename T>
T* deviceCopy(const std::vector<T>& host) {
  T* p = nullptr;
  CHECK(cudaMalloc(&p, host.size() * sizeof(T)));
  CHECK(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

// Uniform in [-1, 1).
inline float* deviceRandomFloats(size_t count, uint32_t seed) {
  std::vector<float> h(count);
  uint32_t s = seed * 2654435761u + 1u;
  for (auto& v : h) v = (nextRandom(s) >> 8) * (2.0f / 16777216.0f) - 1.0f;
  return deviceCopy(h);
}

inline double* deviceRandomDoubles(size_t count, uint32_t seed) {
  std::vector<double> h(count);
  uint32_t s = seed * 2654435761u + 1u;
  for (auto& v : h) v = (nextRandom(s) >> 8) * (2.0 / 16777216.0) - 1.0;
  return deviceCopy(h);
}

inline __half* deviceRandomHalves(size_t count, uint32_t seed) {
  std::vector<__half> h(count);
  uint32_t s = seed * 2654435761u + 1u;
  for (auto& v : h) v = __float2half((nextRandom(s) >> 8) * (2.0f / 16777216.0f) - 1.0f);
  return deviceCopy(h);
}

inline unsigned char* deviceRandomBytes(size_t count, uint32_t seed) {
  std::vector<unsigned char> h(count);
  uint32_t s = seed * 2654435761u + 1u;
  for (auto& v : h) v = static_cast<unsigned char>(nextRandom(s) >> 24);
  return deviceCopy(h);
}

// Any trivially copyable element type: random bytes that read as finite floats (struct inputs).
template <typename T>
T* deviceRandomElements(size_t count, uint32_t seed) {
  static_assert(sizeof(T) % sizeof(float) == 0, "element must be a whole number of floats");
  return reinterpret_cast<T*>(deviceRandomFloats(count * (sizeof(T) / sizeof(float)), seed));
}

// Indices uniform in [0, range).
inline int* deviceRandomIndices(size_t count, int range, uint32_t seed) {
  std::vector<int> h(count);
  uint32_t s = seed * 2654435761u + 1u;
  for (auto& v : h) v = static_cast<int>(nextRandom(s) % static_cast<uint32_t>(range));
  return deviceCopy(h);
}
