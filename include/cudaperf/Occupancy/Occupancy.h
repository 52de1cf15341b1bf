//===- Occupancy.h - Theoretical occupancy, as the CUDA runtime computes it -*- C++ -*-===//
//
// How many blocks of a kernel fit on one SM at once, with the semantics of
// cudaOccupancyMaxActiveBlocksPerMultiprocessor: the minimum of the limits set by warp slots,
// resident blocks, registers (allocated per warp in 256-register units, per sub-partition),
// shared memory (allocation unit, per-block reservation, carveout steps) and, from compute
// capability 9.0 on, hardware barriers. The per-architecture numbers live in the GPU table of
// lib/Support (support::gpuArchs()), each row with its source; the rules are documented in
// docs/occupancy.md.
//
// Plain C++17 with no LLVM or CUDA dependency: the analyzer, the GPU-side accuracy sweep
// (tools/occupancy-sweep) and the runtime all link it.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_OCCUPANCY_OCCUPANCY_H
#define CUDAPERF_OCCUPANCY_OCCUPANCY_H

#include "cudaperf/Support/GpuTable.h"

#include <climits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf::occupancy {

/// The per-architecture limits and the devices come from the GPU table of lib/Support, each row
/// with its sources.
using ArchSpec = support::GpuArch;
using DeviceSpec = support::GpuDevice;

/// What the compiler and the program decided about a kernel (cudaFuncGetAttributes' fields).
struct KernelResources {
  int RegistersPerThread = 0;
  int StaticSharedBytes = 0;
  /// Largest block the kernel may be launched with (__launch_bounds__ or the device limit).
  int MaxThreadsPerBlock = INT_MAX;
  /// cudaFuncAttributeMaxDynamicSharedMemorySize; unset: the runtime's default, which is the
  /// per-block limit without opt-in minus the static shared memory.
  std::optional<int> MaxDynamicSharedBytes;
  /// Hardware barriers (ptxas "used N barriers"); cudaperf counts at least one, as the
  /// runtime's calculator does.
  int Barriers = 1;
};

/// How it is launched.
struct LaunchShape {
  int BlockThreads = 256;
  int DynamicSharedBytes = 0;
  /// cudaFuncAttributePreferredSharedMemoryCarveout: -1 for no preference, else 0..100 percent
  /// of the largest shared-memory configuration.
  int CarveoutPercent = -1;
};

enum class Limiter { None, Warps, Registers, SharedMemory, Blocks, Barriers, BlockSize };
const char *toString(Limiter L); // "warps", "registers", "shared-memory", "blocks", "barriers", "block-size"

struct OccupancyResult {
  int ActiveBlocksPerSM = 0;
  int ActiveWarpsPerSM = 0;
  int MaxWarpsPerSM = 0;
  double Theoretical = 0; // ActiveWarpsPerSM / MaxWarpsPerSM
  /// The binding limit (first in the order registers, shared memory, warps, blocks, barriers
  /// when several bind equally). BlockSize: the block cannot launch at all.
  Limiter Limit = Limiter::None;
  std::vector<Limiter> AllLimiters; // every limit equal to the result
  // Blocks per SM each resource alone allows; INT_MAX where it sets no limit.
  int BlocksByWarps = INT_MAX, BlocksByRegisters = INT_MAX, BlocksBySharedMem = INT_MAX,
      BlocksByBlockSlots = INT_MAX, BlocksByBarriers = INT_MAX;
  int WarpsPerBlock = 0;
  int RegistersPerBlock = 0;     // as allocated
  int SharedBytesPerBlock = 0;   // as allocated (static + dynamic + reserved, rounded)
  int SharedMemConfigBytes = 0;  // the SM's shared-memory carveout this launch gets
  std::string Problem;           // why nothing fits, when ActiveBlocksPerSM is 0
};

/// cudaOccupancyMaxActiveBlocksPerMultiprocessor for \p K launched as \p L on \p A.
OccupancyResult computeOccupancy(const ArchSpec &A, const KernelResources &K, const LaunchShape &L);

/// Grid waves on a device: blocks / (active blocks per SM × SMs).
struct WaveInfo {
  double Waves = 0;
  long long FullWaves = 0;
  double LastWaveFraction = 0; // how full the last wave is, 0..1 (1 when the grid fills it)
  long long BlocksPerWave = 0;
};
std::optional<WaveInfo> computeWaves(long long GridBlocks, int ActiveBlocksPerSM, int SMs);

/// One step up from the current occupancy: the nearest change that lets one more block (or, when
/// the block size limits, more warps) reside per SM.
struct RaiseSuggestion {
  Limiter Change = Limiter::None; // what to change: Registers, SharedMemory, BlockSize
  int Value = 0;                  // registers per thread to cap at / shared bytes per block / block size
  int ActiveBlocksPerSM = 0;      // after the change
  double Theoretical = 0;         // after the change
  std::string Text;               // a sentence naming the concrete change
};
/// Null when occupancy is already 100% or no single change of the limiting resource raises it.
std::optional<RaiseSuggestion> suggestRaise(const ArchSpec &A, const KernelResources &K,
                                            const LaunchShape &L);

/// The block sizes 32, 64, ..., 1024 (limited by the kernel's maximum) with their occupancy.
std::vector<std::pair<int, OccupancyResult>> occupancyByBlockSize(const ArchSpec &A,
                                                                  const KernelResources &K,
                                                                  int DynamicSharedBytes,
                                                                  int CarveoutPercent = -1);

} // namespace cudaperf::occupancy

#endif
