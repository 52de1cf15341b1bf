// The analyzer's JSON (schema v1, docs/json-schema.md) with the additions of `--task`
// (TASK_JSON.md: `task`, `configurations[].launches[]`), as structs: the parts that features,
// joins and rewards read. The document is read by lib/Schema (schema::AnalysisDocument, the one
// owner of the wire format, whose errors name the field path); this is the view kept from it.
// Values the analyzer left unknown (JSON null) are empty optionals; keys a newer analyzer adds are
// kept by the schema reader and not used here.
#pragma once

#include "cudaperf/Support/Json.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::features {

struct Dim3 {
  int64_t x = 1, y = 1, z = 1;
  int64_t count() const { return x * y * z; }
  bool operator==(const Dim3 &o) const { return x == o.x && y == o.y && z == o.z; }
  bool operator!=(const Dim3 &o) const { return !(*this == o); }
  std::string text() const; // "[4, 1, 1]"
};

struct SourcePosition {
  std::string file;
  int line = 0, column = 0;
};

// One memory instruction of the device code (ACCESS).
struct AccessReport {
  std::string space, op, pattern; // "global" / "shared" / ..., "load" / "store" / "atomic"
  int bytes = 0;                  // per thread
  std::optional<double> sectorsPerRequest, idealSectorsPerRequest; // global
  std::optional<double> bankConflictWays, idealWavefronts;         // shared
  std::optional<double> executionsPerThread;
  std::optional<double> laneExecutions; // over the launch, guards counted (global accesses)
  int line = 0, column = 0;
};

// The FLOP precisions of the work analysis, in its order.
constexpr std::array<const char *, 4> kPrecisions = {"fp16", "bf16", "fp32", "fp64"};

// One kernel analysed at one launch (KERNEL).
struct KernelReport {
  std::string name, mangledName;
  SourcePosition position;
  // launch
  std::optional<Dim3> grid;
  Dim3 block;
  std::optional<int64_t> dynamicSmemBytes;
  std::string launchOrigin; // "launch-site", "cli", "launch-bounds", "assumed", "task-config"
  std::vector<AccessReport> accesses;
  std::optional<double> coalescingEfficiency; // the analyzer's, weighted by executions
  // sync
  std::optional<int64_t> barriers, divergentBarriers, missingBarriers, redundantBarriers;
  std::optional<double> barriersPerThread;
  // resources
  std::optional<int64_t> registers, spillStoreBytes, spillLoadBytes, localBytes, staticSmemBytes, hwBarriers;
  std::string resourceSource; // "nvcc", "nvrtc", "estimate"
  // occupancy
  std::optional<int64_t> activeBlocksPerSM, activeWarpsPerSM, maxWarpsPerSM, gridBlocks, blocksPerWave, fullWaves;
  std::optional<double> theoretical, waves, lastWaveFraction;
  std::string limiter, occupancyDevice; // "" when unknown
  std::optional<int64_t> sms;
  // work
  std::optional<double> threads, flops, tensorFlops, dramReadBytes, dramWriteBytes, globalLoadBytes,
      globalStoreBytes, globalLoadSectors, globalStoreSectors, sharedBytes, arithmeticIntensity,
      rooflineTimeUs;
  std::array<std::optional<double>, 4> flopsByPrecision; // kPrecisions order
  std::string bound; // "memory", "compute", "" when unknown
  std::vector<std::string> notes;
};

struct Diagnostic {
  std::string check, severity, message, kernel, file;
  int line = 0, column = 0;
  // The modelled time a fix would save per launch (microseconds, finite, >= 0); absent where the
  // check gives no estimate and in documents written before the analyzer had the field.
  std::optional<double> estimatedSavingUs;
};

struct UnresolvedPart {
  std::string part, reason; // "grid" / "block" / "dynamic_smem_bytes" / an argument
};

// One launch of the entry point at one configuration, in execution order.
struct LaunchReport {
  int index = 0;
  std::string kernel, mangledName; // "" when the analyzer does not know the kernel
  SourcePosition site;
  bool resolved = false;
  std::vector<UnresolvedPart> unresolved;
  std::optional<Dim3> grid, block;
  std::optional<int64_t> dynamicSmemBytes;
  std::map<std::string, std::optional<double>> scalarArgs;
  std::optional<KernelReport> report; // absent when sameReportAs is set, or when there is none:
  std::optional<int> sameReportAs;    // index of an earlier launch with the same report
  std::vector<std::string> launchErrors; // why the launch fails before the kernel runs
  std::string noReportReason;
};

struct ConfigurationAnalysis {
  std::string name;
  std::map<std::string, double> values;
  std::map<std::string, int64_t> pointerElements;
  bool entryFound = true;
  bool launchesComplete = true;
  std::string reason; // why the entry was not found or the launches are incomplete
  std::vector<LaunchReport> launches;
  std::vector<Diagnostic> diagnostics;

  // The report of a launch, following same_report_as; null when neither is there.
  const KernelReport *reportOf(const LaunchReport &launch) const;
};

struct TaskInfo {
  std::string name, dir, entry, kind;
};

struct AnalysisDocument {
  std::string source; // where it was read from, for messages
  std::string arch;   // "sm_90"
  std::vector<KernelReport> kernels; // the file's kernels at their default launch
  std::vector<Diagnostic> diagnostics;
  std::optional<TaskInfo> task;      // --task documents only
  std::vector<ConfigurationAnalysis> configurations;

  const ConfigurationAnalysis *configuration(const std::string &name) const;
  bool knowsKernel(const std::string &mangledName) const; // one of the file's kernels
};

// Throws FeaturesError naming `source` and the field path.
AnalysisDocument readAnalysis(const support::Json &doc, const std::string &source);
AnalysisDocument readAnalysisFile(const std::string &path);

} // namespace cudaperf::features
