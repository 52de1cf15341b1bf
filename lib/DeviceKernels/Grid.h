// Launch shapes shared by the kernels of this library.
#pragma once

#include <cstdint>

namespace cudaperf::devicekernels {

constexpr int kThreads = 256;
// Reductions write one partial result per block, reduced by a single block of kThreads * 4.
constexpr int kMaxReductionBlocks = 1024;

inline unsigned blocksFor(uint64_t items, unsigned maxBlocks) {
  uint64_t b = (items + kThreads - 1) / kThreads;
  return unsigned(b == 0 ? 1 : (b < maxBlocks ? b : maxBlocks));
}

} // namespace cudaperf::devicekernels
