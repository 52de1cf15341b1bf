//===- Occupancy.h - Theoretical occupancy, as the CUDA runtime computes it -*- C++ -*-===//
//
// How many blocks of a kernel fit on one SM at once, with the semantics of
// cudaOccupancyMaxActiveBlocksPerMultiprocessor: the minimum of the limits set by warp slots,
// resident blocks, registers (allocated per warp in 256-register units, per sub-partition),
// shared memory (allocation unit, per-block reservation, carveout steps) and, from compute
// capability 9.0 on, hardware barriers. The per-architecture numbers live in ArchSpec rows
// (ArchTable.cpp), each with its source; the rules are documented in docs/occupancy.md.
//
// Plain C++17 with no LLVM or CUDA dependency: the analyzer, the GPU-side accuracy sweep
// (tools/occupancy-sweep) and the runtime all link it.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_OCCUPANCY_OCCUPANCY_H
#define CUDAPERF_OCCUPANCY_OCCUPANCY_H

#include <climits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf::occupancy {

/// What one compute capability offers a kernel, per SM and per block.
struct ArchSpec {
  int Major = 0, Minor = 0;
  const char *Family = "";        // "Hopper"
  int WarpSize = 32;
  int MaxThreadsPerBlock = 1024;
  int MaxThreadsPerSM = 0;        // resident threads (warp slots × 32)
  int MaxBlocksPerSM = 0;         // resident blocks
  int RegistersPerSM = 0;
  int RegistersPerBlock = 0;
  int MaxRegistersPerThread = 255;
  int RegisterAllocUnit = 256;    // registers are given to a warp in units of this many
  int SubPartitions = 4;          // a warp's registers come from one of these quarters of the file
  int SharedMemPerSM = 0;         // the largest carveout, bytes
  int SharedMemPerBlock = 49152;  // without opt-in
  int SharedMemPerBlockOptin = 0; // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int ReservedSharedMemPerBlock = 0; // taken by the driver for each resident block
  int SharedMemAllocUnit = 0;
  std::vector<int> CarveoutStepsKiB; // the shared-memory sizes an SM can be configured to
  /// Hardware barriers available per resident-block slot when the barrier limit applies
  /// (computed as slots × this / barriers used); 0: no barrier limit on this architecture.
  int BarriersPerBlockSlot = 0;
  const char *Source = ""; // where these numbers come from

  int maxWarpsPerSM() const { return MaxThreadsPerSM / WarpSize; }
  std::string smName() const; // "sm_90"
};

/// The table row for compute capability Major.Minor, or null when cudaperf has none.
const ArchSpec *findArch(int Major, int Minor);
/// Accepts "sm_90", "sm_90a", "compute_90", "90", "9.0", "sm_100f".
const ArchSpec *findArch(std::string_view Arch);
/// Every row, oldest first.
const std::vector<ArchSpec> &allArchs();

/// A GPU model: which compute capability and how many SMs (for waves of a grid).
struct DeviceSpec {
  const char *Name;  // "H200"
  int Major, Minor;
  int SMs;
  const char *Source;
};
const std::vector<DeviceSpec> &allDevices();
/// Case-insensitive match on the name ("h100-sxm", "H100 SXM" and "H100_SXM" are the same).
const DeviceSpec *findDevice(std::string_view Name);
/// The device cudaperf assumes for an architecture when none is named: the project's H200 for 9.0,
/// otherwise the first device of that compute capability in the table.
const DeviceSpec *defaultDevice(int Major, int Minor);

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
