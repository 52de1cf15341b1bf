//===- KernelFacts.h - Typed per-kernel sections of the analysis document -----*- C++ -*-===//
//
// The resources, occupancy and work sections of a kernel (docs/json-schema.md) as plain structs: the
// analyses fill them, the checks read their fields, the writers print their toJson(). toJson
// writes exactly the documented keys (a key is never renamed); fromJSON reads them back with
// errors naming the field path. Issue 37 item 2; sync and accesses are still JSON objects.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_REPORT_KERNELFACTS_H
#define CUDAPERF_REPORT_KERNELFACTS_H

#include "llvm/Support/JSON.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

/// `resources`: per-thread registers and memory from ptxas's report, or estimated from the IR.
struct ResourceFacts {
  int64_t Registers = 0;
  int64_t SpillStoreBytes = 0;
  int64_t SpillLoadBytes = 0;
  int64_t LocalBytes = 0;
  int64_t StaticSmemBytes = 0;
  int64_t Barriers = 0;
  int64_t ConstantBytes = 0;
  std::string Source = "estimate"; // nvcc | nvrtc | estimate
  std::string Compiler;            // written with Cached only when Source is not "estimate"
  bool Cached = false;
  std::string Arch;

  bool fromCompiler() const { return Source != "estimate"; }
  llvm::json::Object toJson() const;
};
bool fromJSON(const llvm::json::Value &V, ResourceFacts &R, llvm::json::Path P);

/// How a grid fills the GPU: waves of BlocksPerWave (resident blocks per SM x SMs).
struct WaveFacts {
  int64_t BlocksPerWave = 0;
  double Waves = 0;
  int64_t FullWaves = 0;       // written for the kernel's launch, not per launch site
  double LastWaveFraction = 0; // 0..1
};

/// `occupancy.launch_sites[]`: one constant launch site of the kernel.
struct LaunchSiteOccupancy {
  int64_t Line = 0;
  int64_t Column = 0;
  int64_t GridBlocks = 0;
  int64_t BlockSize = 0;
  int64_t DynamicSmemBytes = 0;
  int64_t ActiveBlocksPerSM = 0;
  double Theoretical = 0;
  std::optional<WaveFacts> Waves;
};

/// `occupancy.raise`: the one change that lets one more block reside.
struct OccupancyRaise {
  std::string Change; // registers | shared-memory | block-size
  int64_t Value = 0;
  int64_t ActiveBlocksPerSM = 0;
  double Theoretical = 0;
  std::string Text;
};

/// `occupancy.limits`: blocks per SM each resource allows; none where it does not limit.
struct OccupancyLimits {
  std::optional<int64_t> Registers, SharedMemory, Warps, Blocks, Barriers;
};

/// `occupancy`: theoretical occupancy of the kernel's resolved launch.
struct OccupancyFacts {
  std::string Arch;
  std::optional<std::string> Device; // with SMs, when the table knows a device of Arch
  std::optional<int64_t> SMs;
  int64_t BlockSize = 0;
  int64_t DynamicSmemBytes = 0;
  std::string LaunchOrigin;
  int64_t Registers = 0;
  int64_t StaticSmemBytes = 0;
  int64_t ActiveBlocksPerSM = 0; // 0: the block cannot launch (Problem says why)
  int64_t ActiveWarpsPerSM = 0;
  int64_t MaxWarpsPerSM = 0;
  double Theoretical = 0;
  std::string Limiter;
  OccupancyLimits Limits;
  int64_t AllocatedRegistersPerBlock = 0;
  int64_t AllocatedSmemPerBlock = 0;
  std::string Problem; // empty: not written
  /// When the grid is known: grid_blocks and the waves (written together).
  std::optional<int64_t> GridBlocks;
  std::optional<WaveFacts> Waves;
  std::vector<LaunchSiteOccupancy> LaunchSites; // empty: not written
  std::optional<OccupancyRaise> Raise;

  llvm::json::Object toJson() const;
};
bool fromJSON(const llvm::json::Value &V, OccupancyFacts &O, llvm::json::Path P);

/// A count of the work section: a number, or null where it is unknown (written as null).
using WorkCount = std::optional<double>;

/// `work.flops.<precision>`: FLOPs of one precision over the launch.
struct PrecisionFlops {
  WorkCount Total, Add, Mul, Fma, Library, Division, Sqrt, Special;
};

/// `work.flops`: FLOPs over the launch (null where the grid or a trip count is unknown).
struct WorkFlops {
  WorkCount Total;
  WorkCount PerThread;
  std::map<std::string, PrecisionFlops> ByPrecision; // keyed by precision name (fp32, ...)
  WorkCount Library;
  std::optional<std::map<std::string, WorkCount>> SpecialFunctions;
  WorkCount Tensor;
  std::optional<std::map<std::string, WorkCount>> TensorByType;
  std::optional<std::string> PerThreadExpr;
};

/// `work.arrays[]`: the loads of one array, when it has any.
struct ArrayLoadFacts {
  WorkCount GlobalLoadBytes;
  std::optional<double> ReuseFactor; // absent unless requested and read bytes are known
  bool StagedInShared = false;
  int64_t Line = 0;
  int64_t Column = 0;
};

/// `work.arrays[]`: DRAM traffic of one array (base pointer).
struct ArrayTrafficFacts {
  std::optional<std::string> Array; // null when it has no name
  WorkCount DramReadBytesEstimate;
  WorkCount DramWriteBytesEstimate;
  bool RangeKnown = false;
  std::optional<ArrayLoadFacts> Loads;
};

/// The times of `work.roofline`, written together when the work is known.
struct RooflineTimes {
  double ComputeTimeUs = 0;
  double MemoryTimeUs = 0;
  double RidgeFp32FlopPerByte = 0;
};

/// `work.roofline`: the device whose peaks bound the time.
struct RooflineFacts {
  std::string Device;
  double DramBytesPerSecond = 0;
  std::string BandwidthSource; // measured | datasheet
  std::optional<RooflineTimes> Times;
};

/// `work.loops[]`.
struct LoopFacts {
  int64_t Line = 0;
  int64_t Depth = 0;
  std::string TripCountExpr;
  bool TripCountKnown = false;
};

/// `work`: FLOPs, bytes, arithmetic intensity and the roofline bound of the launch. Numbers are
/// stored as written (the analysis rounds them), whole ones written as integers.
struct WorkFacts {
  WorkCount Threads;
  WorkFlops Flops;
  std::map<std::string, WorkCount> SassFpInstructions;
  WorkCount IntOps;
  WorkCount GlobalLoadBytes, GlobalStoreBytes;
  WorkCount GlobalLoadSectors, GlobalStoreSectors, GlobalSectors;
  WorkCount SharedBytes;
  WorkCount DramReadBytesEstimate, DramWriteBytesEstimate, DramWriteBytesEstimateAtomic;
  std::vector<ArrayTrafficFacts> Arrays;
  WorkCount ArithmeticIntensity;
  std::optional<double> L2ArithmeticIntensity; // absent when unknown
  WorkCount RooflineTimeUs;
  std::optional<std::string> Bound; // compute | memory | ...; null when unknown
  std::optional<RooflineFacts> Roofline; // absent without a device of the architecture
  std::vector<LoopFacts> Loops;
  std::vector<std::string> Notes; // empty: not written

  llvm::json::Object toJson() const;
};
bool fromJSON(const llvm::json::Value &V, WorkFacts &W, llvm::json::Path P);

/// An absent section is written as an empty object, as the JSON objects were.
template <typename Facts> llvm::json::Object sectionToJson(const std::optional<Facts> &F) {
  return F ? F->toJson() : llvm::json::Object();
}

} // namespace cudaperf

#endif
