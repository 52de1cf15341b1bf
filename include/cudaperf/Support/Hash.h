// Small non-cryptographic hashes whose values must be the same on every machine and standard library
// (std::hash promises neither): FNV-1a 64 of a string, and the splitmix64 step. The dataset generator's
// PRNG and seeds (lib/Dataset) and SFT's repair-example choices (lib/Learn) are built on them.
#pragma once

#include <cstdint>
#include <string_view>

namespace cudaperf::support {

constexpr uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ull;

inline uint64_t fnv1a64(std::string_view s, uint64_t basis = kFnv1aOffsetBasis) {
  uint64_t h = basis;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// splitmix64's output for the state x (the state then advances by the golden-ratio increment).
inline uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

} // namespace cudaperf::support
