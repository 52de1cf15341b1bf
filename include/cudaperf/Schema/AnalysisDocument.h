// The analyzer's document, `cudaperf-analyze --format=json` schema v1 (docs/json-schema.md), with
// what `--task` adds (task, configurations[].launches[]): one typed definition of the wire format
// on the non-LLVM side. The analyzer writes its own bytes (lib/Report, llvm::json, from the typed
// facts of include/cudaperf/Report/KernelFacts.h); this is the reader, and the writer for a
// document that is read, changed and stored again.
//
// Presence is part of the value, as in EvalResult: every member is optional (the analyzer leaves
// out a section it has no facts for, writes `{}` for a missing section, and older documents lack
// keys added since, such as sync.war_hazard_sites), and a key the analyzer writes as null where a
// value is unknown is a Nullable. Only what a reader cannot do without is required: the schema
// version (1), `kernels`, a kernel's name, mangled_name, launch and launch.block, an access's
// space, op and bytes, a configuration's name and launches, a launch's index, kernel, mangled_name
// and resolved, the task's name, a diagnostic's check, an unresolved part's part.
//
// Unknown keys: the contract lets the analyzer add keys freely, so a key this build does not know
// is kept (`extra`, written back where it was) rather than refused; `unknownKeyPaths` lists every
// one by its path, and test/schema requires that list to be empty for the current analyzer's
// output and for every stored document, so a key the analyzer starts writing is added here.
// Numbers are written back as read: a whole number as an integer (llvm::json writes a whole double
// as one), key order kept, so a document reads and writes back byte-identically.
#pragma once

#include "cudaperf/Schema/EvalResult.h" // Nullable, KeyOrder
#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudaperf::support {
class JsonField;
} // namespace cudaperf::support

namespace cudaperf::schema {

// The keys of one object that this build does not know, and the order its keys were read in.
struct KeptKeys {
  Json extra = Json::object();
  KeyOrder keyOrder;
};

// An object of named numbers (launch params, a configuration's values); key order kept by Json.
using NamedNumbers = std::vector<std::pair<std::string, double>>;
using NamedNullableNumbers = std::vector<std::pair<std::string, std::optional<double>>>;

// [x, y, z]; the analyzer writes three numbers, a reader accepts one to three.
struct Dim3 {
  int64_t x = 1, y = 1, z = 1;
  int rank = 3; // how many were written
  int64_t count() const { return x * y * z; }
  bool operator==(const Dim3 &o) const { return x == o.x && y == o.y && z == o.z; }
  bool operator!=(const Dim3 &o) const { return !(*this == o); }
};

// Reads [x], [x, y] or [x, y, z], each a whole number >= 0, `rank` the count; throws
// support::SupportError naming the field. The one reader of a dimension (lib/Features reads an eval
// result's launch dimensions with it too).
Dim3 readDim3(const support::JsonField &f);

struct Position : KeptKeys {
  std::optional<int64_t> line, column;
};

// ---- accesses[] ----

struct ThreadCoefficients : KeptKeys {
  std::optional<int64_t> x, y, z;
};

struct Access : KeptKeys {
  std::optional<std::string> file;
  std::optional<int64_t> line, column;
  std::string space, op; // required: global | shared | ...; load | store | atomic
  int64_t bytes = 0;      // required: per thread, 0 .. 1 MiB
  std::optional<std::string> pattern;
  Nullable<double> sectorsPerRequest, bankConflictWays;
  Nullable<int64_t> executionsPerThread;
  std::optional<std::string> executionsPerThreadExpr;
  Nullable<double> laneExecutions;
  std::optional<double> launchSectorsPerRequest;
  std::optional<std::string> base;
  std::optional<int64_t> loopDepth;
  std::optional<bool> gridStrideLoop, laneGuarded;
  std::optional<std::string> address;
  Nullable<ThreadCoefficients> threadCoefficients;
  std::optional<int64_t> strideBytes;
  std::optional<double> strideElements;
  std::optional<std::vector<std::string>> unknownParams;
  std::optional<int64_t> misalignmentBytes;
  std::optional<bool> structStride;
  std::optional<double> idealSectorsPerRequest, sectorsPerRequestTypical, sectorsPerRequestWorst;
  std::optional<std::string> array;
  std::optional<std::vector<int64_t>> arrayDims;
  std::optional<int64_t> elementBytes;
  std::optional<double> idealWavefronts;
  std::optional<std::string> unknownReason;
  std::optional<int64_t> unknownLoopLine;
  std::optional<std::vector<std::string>> notes;
};

// ---- sync ----

struct BarrierSite : KeptKeys {
  std::optional<int64_t> line, column;
  std::optional<bool> inLoop;
  Nullable<int64_t> executionsPerThread;
  std::optional<bool> divergent, redundant;
};

struct DivergentBarrierSite : KeptKeys {
  std::optional<int64_t> line, column;
  std::optional<Position> condition;
};

struct MissingBarrierSite : KeptKeys {
  std::optional<int64_t> line, column;
  std::optional<Position> write;
  std::optional<std::string> readerThread, writerThread;
};

struct WarHazardSite : KeptKeys {
  std::optional<int64_t> line, column;
  std::optional<Position> write, loop;
  std::optional<std::string> readerThread, writerThread;
};

struct AtomicSite : KeptKeys {
  std::optional<int64_t> line, column;
  std::optional<std::string> space;
  std::optional<int64_t> lanesPerAddress, threadsPerAddress;
  std::optional<bool> sharedAcrossBlocks, compilerAggregatesWarp;
  Nullable<int64_t> executionsPerThread;
  std::optional<int64_t> gridBlocks;
};

struct SyncSection : KeptKeys {
  std::optional<int64_t> barriers, barriersInLoops;
  Nullable<int64_t> barriersPerThread;
  std::optional<std::string> barriersPerThreadNote;
  std::optional<int64_t> divergentBarriers;
  std::optional<std::vector<BarrierSite>> barrierSites;
  std::optional<std::vector<DivergentBarrierSite>> divergentBarrierSites;
  std::optional<std::vector<Position>> redundantBarrierSites;
  std::optional<std::vector<MissingBarrierSite>> missingBarrierSites;
  // Written since the WAR-hazard and contended-atomic checks; absent in older documents.
  std::optional<std::vector<WarHazardSite>> warHazardSites;
  std::optional<std::vector<AtomicSite>> atomicSites;
  std::optional<std::vector<std::string>> warpPrimitives;
  std::optional<Json> atomics; // an object: space -> {class -> count}
};

// ---- resources ----

struct ResourcesSection : KeptKeys {
  std::optional<int64_t> registers, spillStoreBytes, spillLoadBytes, localBytes, staticSmemBytes, barriers,
      constantBytes;
  std::optional<std::string> source, arch, compiler; // source: nvcc | nvrtc | estimate
  std::optional<bool> cached;
};

// ---- occupancy ----

struct OccupancyLimits : KeptKeys {
  std::optional<int64_t> registers, sharedMemory, warps, blocks, barriers;
};

struct OccupancyLaunchSite : KeptKeys {
  std::optional<int64_t> line, column, gridBlocks, blockSize, dynamicSmemBytes, activeBlocksPerSM;
  std::optional<double> theoretical;
  std::optional<int64_t> blocksPerWave;
  std::optional<double> waves, lastWaveFraction;
};

struct OccupancyRaise : KeptKeys {
  std::optional<std::string> change;
  std::optional<int64_t> value, activeBlocksPerSM;
  std::optional<double> theoretical;
  std::optional<std::string> text;
};

struct OccupancySection : KeptKeys {
  std::optional<std::string> arch, device;
  std::optional<int64_t> sms, blockSize, dynamicSmemBytes;
  std::optional<std::string> launchOrigin;
  std::optional<int64_t> registers, staticSmemBytes, activeBlocksPerSM, activeWarpsPerSM, maxWarpsPerSM;
  std::optional<double> theoretical;
  std::optional<std::string> limiter;
  std::optional<OccupancyLimits> limits;
  std::optional<int64_t> allocatedRegistersPerBlock, allocatedSmemPerBlock;
  std::optional<std::string> problem;
  std::optional<int64_t> gridBlocks, blocksPerWave, fullWaves;
  std::optional<double> waves, lastWaveFraction;
  std::optional<std::vector<OccupancyLaunchSite>> launchSites;
  std::optional<OccupancyRaise> raise;
};

// ---- work ----

// A count of the work section: a number, or null where it is unknown.
using WorkCount = Nullable<double>;
using NamedWorkCounts = std::vector<std::pair<std::string, std::optional<double>>>; // null: unknown

struct PrecisionFlops : KeptKeys {
  WorkCount total, add, mul, fma, library, division, sqrt, special;
};

struct WorkFlops : KeptKeys {
  WorkCount total, perThread, library, tensor;
  // Every other object-valued key is a precision (fp16, bf16, fp32, fp64, ...), in its order.
  std::vector<std::pair<std::string, PrecisionFlops>> byPrecision;
  std::optional<NamedWorkCounts> specialFunctions, tensorByType;
  std::optional<std::string> perThreadExpr;

  const PrecisionFlops *precision(const std::string &name) const;
};

struct ArrayTraffic : KeptKeys {
  Nullable<std::string> array; // null when it has no name
  WorkCount dramReadBytesEstimate, dramWriteBytesEstimate;
  std::optional<bool> rangeKnown;
  WorkCount globalLoadBytes; // the array's loads, when it has any
  std::optional<double> reuseFactor;
  std::optional<bool> stagedInShared;
  std::optional<int64_t> line, column;
};

struct Roofline : KeptKeys {
  std::optional<std::string> device;
  std::optional<double> dramBytesPerSecond;
  std::optional<std::string> bandwidthSource;
  std::optional<double> computeTimeUs, memoryTimeUs, ridgeFp32FlopPerByte;
};

struct Loop : KeptKeys {
  std::optional<int64_t> line, depth;
  std::optional<std::string> tripCountExpr;
  std::optional<bool> tripCountKnown;
};

struct WorkSection : KeptKeys {
  WorkCount threads;
  std::optional<WorkFlops> flops;
  std::optional<NamedWorkCounts> sassFpInstructions;
  WorkCount intOps, globalLoadBytes, globalStoreBytes, globalLoadSectors, globalStoreSectors, globalSectors,
      sharedBytes, dramReadBytesEstimate, dramWriteBytesEstimate, dramWriteBytesEstimateAtomic,
      arithmeticIntensity, rooflineTimeUs;
  Nullable<std::string> bound; // memory | compute | ...; null when unknown
  std::optional<std::vector<ArrayTraffic>> arrays;
  std::optional<double> l2ArithmeticIntensity;
  std::optional<Roofline> roofline;
  std::optional<std::vector<Loop>> loops;
  std::optional<std::vector<std::string>> notes;
};

// ---- kernels[] ----

struct KernelParameter : KeptKeys {
  std::optional<std::string> name, type, pointee;
  std::optional<int64_t> pointeeBytes;
  std::optional<bool> isConst; // `const`
};

struct LaunchBounds : KeptKeys {
  std::optional<int64_t> maxThreads;
  Nullable<int64_t> minBlocks;
};

struct SharedArray : KeptKeys {
  std::optional<std::string> name, elementType;
  std::optional<int64_t> elementBytes;
  std::optional<std::vector<int64_t>> dims;
  std::optional<int64_t> bytes;
  std::optional<bool> dynamic;
  std::optional<int64_t> line;
};

struct KernelLaunch : KeptKeys {
  Nullable<Dim3> grid;
  std::optional<Dim3> block; // required, null allowed
  std::optional<int64_t> dynamicSmemBytes;
  std::optional<std::string> origin; // launch-site | cli | launch-bounds | assumed | task-config
  std::optional<NamedNumbers> params;
  std::optional<std::vector<std::pair<std::string, int64_t>>> pointerExtentBytes;
};

struct LaunchSite : KeptKeys {
  std::optional<std::string> file;
  std::optional<int64_t> line, column;
  Nullable<Dim3> grid, block;
  Nullable<int64_t> dynamicSmemBytes;
  std::optional<bool> constant;
  std::optional<std::vector<std::optional<double>>> scalarArgs; // null: not a constant
  std::optional<std::vector<std::string>> problems;
  std::optional<bool> evaluated;
  std::optional<int64_t> maxDynamicSmemAttribute;
};

struct AnalysisFault : KeptKeys {
  std::optional<std::string> analysis, fault;
};

// One kernel analysed at one launch (KERNEL in docs/json-schema.md). A section the analyzer had no
// facts for is written `{}`: it reads as a section with no members.
struct Kernel : KeptKeys {
  std::string name, mangledName; // required
  std::optional<std::string> file;
  std::optional<int64_t> line, column;
  std::optional<std::vector<KernelParameter>> parameters;
  Nullable<LaunchBounds> launchBounds;
  std::optional<std::vector<SharedArray>> sharedArrays;
  KernelLaunch launch; // required
  std::optional<std::vector<LaunchSite>> launchSites;
  std::optional<std::vector<Access>> accesses;
  std::optional<SyncSection> sync;
  std::optional<ResourcesSection> resources;
  std::optional<OccupancySection> occupancy;
  std::optional<WorkSection> work;
  std::optional<double> coalescingEfficiency;
  std::optional<std::vector<AnalysisFault>> analysisFaults;
  std::optional<std::vector<std::string>> notes;
};

struct Diagnostic : KeptKeys {
  std::string check; // required
  std::optional<std::string> severity, message, kernel, file;
  std::optional<int64_t> line, column;
  std::optional<std::vector<std::string>> kernels; // a finding in several kernels
  std::optional<int64_t> occurrences;
  // The modelled time a fix saves per launch (finite, >= 0); null or absent where not estimated.
  Nullable<double> estimatedSavingUs;
};

// files[].target: the file's architecture, where it came from, what clang parsed the device code as.
struct FileTarget : KeptKeys {
  std::optional<std::string> arch, origin, deviceIrArch;
  std::optional<std::vector<std::string>> notes;
};

struct FileEntry : KeptKeys {
  std::optional<std::string> file;
  std::optional<bool> analysed;
  std::optional<int64_t> kernels;
  std::optional<FileTarget> target; // without --task
};

struct ToolInfo : KeptKeys {
  std::optional<std::string> name, version;
};

// ---- --task ----

struct TaskInfo : KeptKeys {
  std::string name; // required
  std::optional<std::string> dir, entry, kind;
};

struct SourceSite : KeptKeys {
  std::optional<std::string> file;
  std::optional<int64_t> line, column;
};

struct UnresolvedPart : KeptKeys {
  std::string part; // required: grid | block | dynamic_smem_bytes | an argument
  std::optional<std::string> reason;
};

// pointer_args.<name>: one of {argument, offset_bytes, offset_elements}, {scratch, scratch_id,
// offset_bytes, bytes}, {null}, {host, what}, {unknown, reason}.
struct PointerArg : KeptKeys {
  std::optional<std::string> argument;
  std::optional<int64_t> offsetBytes;
  Nullable<int64_t> offsetElements;
  std::optional<bool> scratch;
  std::optional<int64_t> scratchId;
  Nullable<int64_t> bytes;
  std::optional<bool> isNull, host, unknown;
  std::optional<std::string> what, reason;
};

// One launch of the entry point at one configuration, in execution order.
struct TaskLaunch : KeptKeys {
  int64_t index = 0; // required; equal to the launch's position
  std::string kernel, mangledName; // required; "" when the analyzer does not know the kernel
  std::optional<std::string> via;
  std::optional<SourceSite> site;
  bool resolved = false; // required
  std::optional<std::vector<UnresolvedPart>> unresolved;
  Nullable<Dim3> grid, block;
  Nullable<int64_t> dynamicSmemBytes;
  std::optional<NamedNullableNumbers> scalarArgs;
  std::optional<std::vector<std::pair<std::string, PointerArg>>> pointerArgs;
  std::optional<int64_t> maxDynamicSmemAttribute;
  std::optional<std::vector<std::string>> launchErrors;
  std::optional<Kernel> report;
  std::optional<int64_t> sameReportAs; // an earlier launch with the same report
  std::optional<std::string> noReportReason;
};

struct Configuration : KeptKeys {
  std::string name; // required
  std::optional<NamedNumbers> values;
  std::optional<std::vector<std::pair<std::string, int64_t>>> pointerElements;
  std::optional<bool> entryFound, launchesComplete;
  std::vector<TaskLaunch> launches; // required
  std::optional<std::vector<Diagnostic>> diagnostics;
  std::optional<std::vector<std::string>> notes;
  std::optional<std::string> reason;
};

inline constexpr int64_t kAnalysisSchemaVersion = 1;

struct AnalysisDocument : KeptKeys {
  int64_t schemaVersion = kAnalysisSchemaVersion; // required, 1
  std::optional<ToolInfo> tool;
  std::optional<std::string> arch;
  std::optional<std::string> gpu; // --gpu, without --task
  std::optional<std::vector<FileEntry>> files;
  std::vector<Kernel> kernels; // required: the file's kernels at their default launch
  std::optional<std::vector<Diagnostic>> diagnostics;
  std::optional<TaskInfo> task; // --task documents only
  std::optional<std::vector<Configuration>> configurations;

  // Reads a document; `document` names it in errors ("analysis.json"). Throws
  // support::SupportError "DOCUMENT: PATH: WHAT" for a wrong version, a missing required member,
  // a wrong type or a value out of its range.
  static AnalysisDocument fromJson(const Json &doc, const std::string &document = "analysis document");
  Json toJson() const;

  // Filled by fromJson, not written: the path of every key this build does not know and kept in
  // an `extra` ("kernels[0].sync.future"), in document order.
  std::vector<std::string> unknownKeyPaths;
};

} // namespace cudaperf::schema
