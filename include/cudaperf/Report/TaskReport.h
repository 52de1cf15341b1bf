//===- TaskReport.h - A candidate's launches at a task's configurations -*- C++ -*-===//
//
// What `cudaperf-analyze --task` adds to the schema v1 document (docs/json-schema.md, "--task"):
// per configuration of the task, the launches the entry point makes in execution order, each with
// its grid, block, dynamic shared memory and arguments as evaluated from the host code, and the
// kernel analysed at exactly that launch.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_REPORT_TASKREPORT_H
#define CUDAPERF_REPORT_TASKREPORT_H

#include "cudaperf/Report/KernelReport.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudaperf {

/// Why one part of a launch ("kernel", "grid", "block", "dynamic_smem") is unknown.
struct UnresolvedPart {
  std::string Part;
  std::string Reason;
};

/// Where a pointer argument of a launch points.
struct LaunchPointerArg {
  enum class Kind { Argument, Scratch, Null, Host, Unknown };
  Kind K = Kind::Unknown;
  std::string Argument;             // Argument: the task argument
  int64_t OffsetBytes = 0;          // Argument, Scratch
  int64_t ArgumentElementBytes = 0; // Argument: the task argument's element size
  unsigned ScratchId = 0;           // Scratch: which allocation, in allocation order
  std::optional<int64_t> ScratchBytes; // Scratch: its size when known
  std::string Reason;               // Host, Unknown: what it is / why not known
};

/// One launch as the host-code evaluator found it.
struct EvaluatedLaunch {
  std::string MangledName; // the kernel, as KernelReport::MangledName; empty when unknown
  std::string Via;         // "<<<>>>", "cudaLaunchKernel", "cudaLaunchKernelEx"
  SourceLocation Site;
  std::optional<Dim3> Grid;
  std::optional<Dim3> Block;
  std::optional<int64_t> DynamicSmemBytes;
  std::vector<UnresolvedPart> Unresolved; // empty when kernel, grid, block and smem are all known
  /// One entry per kernel parameter: scalars' values (nullopt when unknown or a pointer) ...
  std::vector<std::optional<ParamValue>> ScalarArgs;
  /// ... and pointers' targets (nullopt for scalars).
  std::vector<std::optional<LaunchPointerArg>> PointerArgs;
  /// cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, v) made before it.
  std::optional<int64_t> MaxDynamicSmemAttribute;

  bool resolved() const { return Unresolved.empty(); }
};

struct TaskLaunchReport {
  unsigned Index = 0;
  std::string Kernel; // KernelReport::Name; empty when the kernel is not known
  std::vector<std::string> ParamNames; // the kernel's parameters, for scalar_args and pointer_args
  EvaluatedLaunch Launch;
  std::optional<KernelReport> Report;  // the kernel analysed at this launch
  std::optional<unsigned> SameReportAs; // instead of Report: an earlier launch's index
  std::vector<std::string> LaunchErrors; // why the launch fails before the kernel runs
  std::string NoReportReason;           // when neither Report nor SameReportAs is set
};

struct TaskConfigurationReport {
  std::string Name;
  std::vector<std::pair<std::string, ParamValue>> Values;        // scalar arguments
  std::vector<std::pair<std::string, int64_t>> PointerElements; // pointer arguments
  bool EntryFound = false;
  bool LaunchesComplete = false;
  std::string Reason; // why the entry was not found / evaluation stopped
  std::vector<TaskLaunchReport> Launches;
  std::vector<Diagnostic> Diagnostics;
  std::vector<std::string> Notes;
};

struct TaskReport {
  std::string Name, Dir, Entry, Kind;
  std::vector<TaskConfigurationReport> Configurations;
};

} // namespace cudaperf

#endif
