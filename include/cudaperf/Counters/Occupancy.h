// Theoretical occupancy of a launch, as Nsight Compute reports it in sm__maximum_warps_per_active_cycle_pct:
// the warps of the blocks that fit on one SM (cuOccupancyMaxActiveBlocksPerMultiprocessor for the launch's
// block size and dynamic shared memory) as a share of the SM's maximum resident warps. Pure arithmetic, no CUDA.
#pragma once

namespace cudaperf::counters {

// blocksPerSm * ceil(threadsPerBlock / warpSize) / (maxThreadsPerSm / warpSize) * 100.
// Returns a negative value when an input is not positive (nothing to report); 0 when no block fits.
double theoreticalOccupancyPct(int blocksPerSm, long long threadsPerBlock, int warpSize, int maxThreadsPerSm);

} // namespace cudaperf::counters
