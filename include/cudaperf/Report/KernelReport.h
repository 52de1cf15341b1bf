//===- KernelReport.h - What cudaperf knows about one kernel ---*- C++ -*-===//
//
// The facts gathered for one __global__ kernel: what the front end read from the AST (parameters,
// launch bounds, shared arrays, launch sites) and what each analysis adds. Report writers turn it
// into text, JSON (schema v1, docs/json-schema.md) and SARIF. Keys of the JSON are never renamed or
// repurposed; new facts go into new fields.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_REPORT_KERNELREPORT_H
#define CUDAPERF_REPORT_KERNELREPORT_H

#include "cudaperf/Report/KernelFacts.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <variant>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

struct Dim3 {
  int64_t X = 1, Y = 1, Z = 1;
  int64_t count() const { return X * Y * Z; }
  bool operator==(const Dim3 &O) const { return X == O.X && Y == O.Y && Z == O.Z; }
  std::string str() const; // "16x16x1"
};

/// Where a kernel's launch configuration came from, in order of precedence (TaskConfig: a
/// report of `--task` at one launch of one configuration).
enum class LaunchOrigin { LaunchSite, CommandLine, LaunchSitePartial, LaunchBounds, Assumed, TaskConfig };
/// "launch-site", "cli", "launch-site-partial", "launch-bounds", "assumed", "task-config"
const char *toString(LaunchOrigin O);

/// A value known for a scalar kernel argument (launch site or --param).
using ParamValue = std::variant<int64_t, double>;

struct LaunchConfig {
  std::optional<Dim3> Grid; // unknown unless a launch site or --launch gives it
  Dim3 Block{256, 1, 1};
  int64_t DynamicSmemBytes = 0;
  LaunchOrigin Origin = LaunchOrigin::Assumed;
  std::map<std::string, ParamValue> Params; // by parameter name
  /// Bytes reachable from each pointer parameter (--task: the task argument's or scratch
  /// allocation's size less the offset passed), by parameter name.
  std::map<std::string, int64_t> PointerExtentBytes;
};

/// One `kernel<<<grid, block, smem, stream>>>(args)` in the analysed file. Each part is set when
/// it evaluates to a constant.
struct LaunchSite {
  SourceLocation Loc;
  std::optional<Dim3> Grid;
  std::optional<Dim3> Block;
  std::optional<int64_t> DynamicSmemBytes; // 0 when the launch omits it
  std::vector<std::optional<ParamValue>> Args; // one per kernel parameter, scalars only
  /// Set for the launch a --task report describes: the site as the entry point ran it at one
  /// configuration, with the dynamic shared memory limit cudaFuncSetAttribute gave the kernel.
  bool Evaluated = false;
  std::optional<int64_t> MaxDynamicSmemAttribute;
  /// Why the launch fails before the kernel runs (launchConfigProblems); filled with the launch
  /// configuration, read by cuda-invalid-launch-config.
  std::vector<std::string> Problems;
  bool isConstant() const { return Grid && Block && DynamicSmemBytes; }
};

struct KernelParam {
  std::string Name;
  std::string Type;             // as written after template substitution, e.g. "const float *"
  bool IsPointer = false;
  bool PointeeIsConst = false;
  std::string PointeeType;      // "float" for "const float *"
  uint64_t PointeeBytes = 0;    // sizeof(pointee), 0 when incomplete or void
  bool IsScalar = false;        // integer, floating or enum
};

/// A __shared__ variable declared in the kernel (or an extern __shared__ array it uses).
struct SharedArrayDecl {
  std::string Name;
  std::string ElementType;
  std::vector<uint64_t> Dims; // empty for a scalar; [0] for extern __shared__ T a[]
  uint64_t ElementBytes = 0;
  uint64_t Bytes = 0;         // 0 for dynamic (extern) arrays
  bool IsDynamic = false;
  SourceLocation Loc;
};

struct KernelReport {
  // Identity, from the AST.
  std::string Name;        // source name without parameters; template args for instantiations
  std::string MangledName; // as in the device IR
  SourceLocation Loc;
  std::vector<KernelParam> Params;
  std::optional<int64_t> LaunchBoundsMaxThreads;
  std::optional<int64_t> LaunchBoundsMinBlocks;
  std::vector<SharedArrayDecl> SharedArrays;
  std::vector<LaunchSite> LaunchSites;

  // Resolved by the launch-configuration pass.
  LaunchConfig Launch;

  // Filled by the analyses (empty objects and absent sections are written as {}).
  std::vector<MemoryAccess> Accesses;
  std::optional<SyncFacts> Sync;           // none: not analysed
  std::optional<ResourceFacts> Resources;   // none: no device code to measure
  std::optional<OccupancyFacts> Occupancy; // none: not computed (a note says why)
  std::optional<WorkFacts> Work;           // none: no device code
  /// `coalescing_efficiency`: ideal over predicted sectors of the global accesses, weighed by
  /// executions (coalescing analysis); none: no access was predicted (not written).
  std::optional<double> CoalescingEfficiency;
  /// `analysis_faults`: the analyses that stopped with a fault, in order (recordFault); empty: not
  /// written. Read by cudaperf-analysis-fault and for the exit code.
  std::vector<AnalysisFault> AnalysisFaults;
  std::vector<std::string> Notes; // analysis remarks shown in the text summary
};

enum class Severity { Note, Warning, Error };
const char *toString(Severity S);

struct Diagnostic {
  std::string Check; // kebab-case check name, also the SARIF ruleId
  Severity Level = Severity::Warning;
  std::string Message;
  SourceLocation Loc;
  std::string Kernel; // name of the kernel it concerns, may be empty
  /// A finding is reported once per check and source location (runChecks): the kernels
  /// (template instantiations) it was found in, in order, Kernel first, and how many findings it
  /// stands for (several per kernel for unrolled iterations and inlined copies of one access).
  std::vector<std::string> Kernels;
  unsigned Occurrences = 1;
  /// The modelled time a fix would save, in microseconds per launch, where the check's model gives
  /// one (docs/checks/<name>.md says how); findings are ordered by it (runChecks).
  std::optional<double> EstimatedSavingUs;
};

/// Everything cudaperf-analyze produced for one input file.
struct FileReport {
  std::string File;
  bool Analysed = false; // false: the file could not be parsed (clang's messages were shown)
  std::vector<KernelReport> Kernels;
  std::vector<Diagnostic> Diagnostics;
};

} // namespace cudaperf

#endif
