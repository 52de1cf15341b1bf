//===- KernelFacts.h - Typed per-kernel sections of the analysis document -----*- C++ -*-===//
//
// The accesses, sync, resources, occupancy and work sections of a kernel and its analysis faults
// (docs/json-schema.md) as plain structs: the analyses fill them, the checks read their fields,
// the writers print their toJson(). toJson writes exactly the documented keys (a key is never
// renamed); fromJSON reads them back with errors naming the field path. Issue 37 item 2.
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

struct SourceLocation {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  bool isValid() const { return Line != 0; }
};

/// A key that is either not written (the outer optional empty), written as null (the inner one
/// empty: unknown) or written with its value.
template <typename T> using NullableKey = std::optional<std::optional<T>>;

/// `accesses[].thread_coefficients`: bytes the address moves per unit step of threadIdx.x/y/z.
struct ThreadCoefficients {
  int64_t X = 0, Y = 0, Z = 0;
};

/// `accesses[]`: one memory instruction of the kernel's device code, mapped back to the source
/// (ACCESS in docs/json-schema.md). The keys after `bank_conflict_ways` are the ones the analyses
/// add; each is written only when set (optionals, non-empty lists, true flags).
struct MemoryAccess {
  SourceLocation Loc;  // `file` (when not empty), `line`, `column`
  std::string Space;   // global | shared | local | constant | generic | texture | surface
  std::string Op;      // load | store | atomic
  unsigned Bytes = 0;  // per-thread bytes of the access
  std::string Pattern; // documented per analysis (docs/json-schema.md)
  std::optional<double> SectorsPerRequest; // null when not predicted
  std::optional<double> BankConflictWays;  // null when not predicted

  NullableKey<int64_t> ExecutionsPerThread; // null: a trip count is unknown
  std::optional<std::string> ExecutionsPerThreadExpr;
  NullableKey<double> LaneExecutions; // work analysis, global accesses; null: unknown
  std::optional<double> LaunchSectorsPerRequest;
  std::optional<std::string> Base; // coalescing: what the address is based on
  std::optional<int64_t> LoopDepth;
  bool GridStrideLoop = false;
  bool LaneGuarded = false;
  std::optional<std::string> Address; // the offset expression
  NullableKey<ThreadCoefficients> Coefficients; // `thread_coefficients`; null: not affine
  std::optional<int64_t> StrideBytes;
  std::optional<double> StrideElements;
  std::vector<std::string> UnknownParams;
  std::optional<int64_t> MisalignmentBytes;
  bool StructStride = false;
  std::optional<double> IdealSectorsPerRequest;
  std::optional<double> SectorsPerRequestTypical; // parameter-dependent: the typical value
  std::optional<double> SectorsPerRequestWorst;
  std::optional<std::string> Array;                // shared: the __shared__ array
  std::optional<std::vector<int64_t>> ArrayDims;   // with Array
  std::optional<int64_t> ElementBytes;             // with Array
  std::optional<double> IdealWavefronts;
  std::optional<std::string> UnknownReason;        // `unknown` accesses
  std::optional<int64_t> UnknownLoopLine;
  std::vector<std::string> Notes;

  /// executions_per_thread when written and known.
  std::optional<int64_t> knownExecutionsPerThread() const {
    return ExecutionsPerThread ? *ExecutionsPerThread : std::nullopt;
  }
  /// Every key; `file` is Loc.File as it is (the JSON writer makes it relative to the source root).
  llvm::json::Object toJson() const;
};
bool fromJSON(const llvm::json::Value &V, MemoryAccess &A, llvm::json::Path P);
bool fromJSON(const llvm::json::Value &V, ThreadCoefficients &C, llvm::json::Path P);

/// `{line, column}` of a place the sync section names.
struct SiteLocation {
  int64_t Line = 0;
  int64_t Column = 0;
};

/// `sync.barrier_sites[]`.
struct BarrierSite {
  int64_t Line = 0, Column = 0;
  bool InLoop = false;
  std::optional<int64_t> ExecutionsPerThread; // null when a trip count is unknown
  bool Divergent = false;                     // written only when true
  bool Redundant = false;                     // written only when true
};

/// `sync.divergent_barrier_sites[]`: for cuda-divergent-barrier.
struct DivergentBarrierSite {
  int64_t Line = 0, Column = 0;
  std::optional<SiteLocation> Condition; // the branch that makes it divergent, when known
};

/// `sync.missing_barrier_sites[]`: a shared read (Line, Column) of another thread's write.
struct MissingBarrierSite {
  int64_t Line = 0, Column = 0;
  SiteLocation Write;
  std::string ReaderThread, WriterThread;
};

/// `sync.war_hazard_sites[]`: a loop's shared read overwritten in the next iteration.
struct WarHazardSite {
  int64_t Line = 0, Column = 0;
  SiteLocation Write, Loop;
  std::string ReaderThread, WriterThread;
};

/// `sync.atomic_sites[]`: an atomic whose address was evaluated, for cuda-contended-atomic.
struct AtomicSite {
  int64_t Line = 0, Column = 0;
  std::string Space;
  int64_t LanesPerAddress = 0;
  int64_t ThreadsPerAddress = 0;
  bool SharedAcrossBlocks = false;
  bool CompilerAggregatesWarp = false;        // written only when true
  std::optional<int64_t> ExecutionsPerThread; // null when a trip count is unknown
  std::optional<int64_t> GridBlocks;          // absent when the grid is unknown
};

/// `sync`: barriers, the barrier checks' sites, warp primitives and atomics.
struct SyncFacts {
  int64_t Barriers = 0;
  int64_t BarriersInLoops = 0;
  std::optional<int64_t> BarriersPerThread; // null when a trip count is unknown
  std::optional<std::string> BarriersPerThreadNote;
  int64_t DivergentBarriers = 0;
  std::vector<BarrierSite> BarrierSites;
  std::vector<DivergentBarrierSite> DivergentBarrierSites;
  std::vector<SiteLocation> RedundantBarrierSites;
  std::vector<MissingBarrierSite> MissingBarrierSites;
  std::vector<WarHazardSite> WarHazardSites;
  std::vector<AtomicSite> AtomicSites;
  std::vector<std::string> WarpPrimitives;
  std::map<std::string, std::map<std::string, int64_t>> Atomics; // space -> class -> count

  llvm::json::Object toJson() const;
};
bool fromJSON(const llvm::json::Value &V, SyncFacts &S, llvm::json::Path P);

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

/// `analysis_faults[]`: an analysis of the kernel that stopped with a fault (a crash inside
/// cudaperf, caught by lib/Analysis/FaultIsolation); its facts are missing from the report.
struct AnalysisFault {
  std::string Analysis; // the analysis's name: coalescing, synchronization, work, ...
  std::string Fault;    // what stopped it, e.g. "segmentation fault (SIGSEGV)"

  llvm::json::Object toJson() const;
};
bool fromJSON(const llvm::json::Value &V, AnalysisFault &F, llvm::json::Path P);

/// An absent section is written as an empty object, as the JSON objects were.
template <typename Facts> llvm::json::Object sectionToJson(const std::optional<Facts> &F) {
  return F ? F->toJson() : llvm::json::Object();
}

} // namespace cudaperf

#endif
