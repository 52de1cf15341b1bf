#include "cudaperf/Counters/Occupancy.h"

namespace cudaperf::counters {

double theoreticalOccupancyPct(int blocksPerSm, long long threadsPerBlock, int warpSize, int maxThreadsPerSm) {
  if (blocksPerSm < 0 || threadsPerBlock <= 0 || warpSize <= 0 || maxThreadsPerSm < warpSize)
    return -1;
  // Warps are allocated whole: a 48-thread block holds two warps.
  long long warpsPerBlock = (threadsPerBlock + warpSize - 1) / warpSize;
  long long maxWarps = maxThreadsPerSm / warpSize;
  return double(blocksPerSm) * double(warpsPerBlock) / double(maxWarps) * 100.0;
}

} // namespace cudaperf::counters
