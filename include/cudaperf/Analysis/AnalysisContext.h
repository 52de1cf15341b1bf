//===- AnalysisContext.h - What every kernel analysis gets -----*- C++ -*-===//
//
// An analysis is one class deriving from KernelAnalysis, in its own file under lib/Analysis. It is
// run once per kernel, in registration order (Analyzer.cpp), after the launch configuration is
// resolved, and adds its facts to the KernelReport. It does not print and does not decide what
// deserves a diagnostic: checks (lib/Checks) do that from the facts.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_ANALYSISCONTEXT_H
#define CUDAPERF_ANALYSIS_ANALYSISCONTEXT_H

#include "cudaperf/Analysis/WorkBudget.h"
#include "cudaperf/Report/KernelReport.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/PassManager.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace cudaperf {

/// A launch configuration given on the command line: --launch=KERNEL:GXxGYxGZ:BXxBYxBZ[:SMEM].
struct LaunchOverride {
  std::optional<Dim3> Grid;
  std::optional<Dim3> Block;
  std::optional<int64_t> DynamicSmemBytes;
};

struct AnalyzerOptions {
  std::string Arch = "sm_90";
  /// The GPU model (--gpu, support::findGpuDevice) for SM counts and roofline peaks; empty: the
  /// architecture's default device (support::defaultGpuDevice, defaultRooflineDevice).
  std::string Gpu;
  /// Keyed by kernel name (source name, with or without template arguments) or mangled name.
  std::map<std::string, LaunchOverride> Launches;
  /// --param KERNEL:NAME=VALUE, keyed like Launches.
  std::map<std::string, std::map<std::string, ParamValue>> Params;
  Dim3 AssumedBlock{256, 1, 1};
  /// Kernels of one file that get the analyses (--max-kernels); the rest keep their AST facts and a
  /// note. Bounds the time a huge generated file takes.
  unsigned MaxKernels = 256;
  /// Set for files over MaxKernels: registers come from the IR estimate instead of compiling the
  /// whole file with NVIDIA's compiler.
  bool EstimateResourcesOnly = false;
  /// Include paths, macros and the language standard of the file's compile command
  /// (sourceMeaningFlags), for analyses that compile the file with another compiler.
  std::vector<std::string> CompileArgs;
  /// The work one kernel's analyses may do (WorkBudget.h; --analysis-steps, --analysis-seconds).
  WorkLimits Limits;
  /// Instantiations of one kernel template that get the lane analyses (coalescing, work, shared
  /// memory, synchronization); later ones get resources and occupancy only, with a note
  /// (--max-instantiations).
  unsigned MaxInstantiations = 32;
  /// --inject-fault=KERNEL:KIND[:ANALYSIS] (hidden, for tests of the fault isolation): raise fault
  /// KIND (FaultIsolation.h) when ANALYSIS (default: the first) starts on KERNEL. (The driver
  /// handles KERNEL = @FILE, a fault at the end of that file's parse.)
  std::string InjectFault;
  /// The translation unit being analysed (the file given on the command line, not the header a
  /// kernel is defined in), for analyses that compile it with another compiler.
  std::string MainFile;
};

struct MemoryInventory;

/// Per-module state shared by the analyses of one file: the device IR and LLVM's analysis
/// managers (ScalarEvolution, loops, dominators ... are computed once per function and cached).
class AnalysisContext {
public:
  AnalysisContext(llvm::Module &M, const AnalyzerOptions &Opts);
  ~AnalysisContext();

  llvm::Module &module() { return M; }
  const AnalyzerOptions &options() const { return Opts; }
  llvm::FunctionAnalysisManager &functionAnalyses() { return *FAM; }

  /// The device function of a kernel, or null when clang emitted none.
  llvm::Function *kernelFunction(const KernelReport &K) const;

  /// collectMemoryAccesses(F), computed once per function and shared by the analyses (they read
  /// the IR and never change it).
  const MemoryInventory &memoryAccesses(llvm::Function &F);

  /// After a fault inside an analysis of \p F: drops what is cached for it (it may be half built)
  /// and, since the caches may be inconsistent, leaks rather than destroys them at the end.
  void forgetAfterFault(llvm::Function &F);

private:
  llvm::Module &M;
  const AnalyzerOptions &Opts;
  std::unique_ptr<llvm::FunctionAnalysisManager> FAM;
  std::unique_ptr<llvm::LoopAnalysisManager> LAM;
  std::unique_ptr<llvm::CGSCCAnalysisManager> CGAM;
  std::unique_ptr<llvm::ModuleAnalysisManager> MAM;
  std::map<const llvm::Function *, std::unique_ptr<MemoryInventory>> Inventories;
  bool Faulted = false;
};

class KernelAnalysis {
public:
  virtual ~KernelAnalysis();
  virtual llvm::StringRef name() const = 0;
  /// \p F is the kernel's device function (null when it was not emitted).
  virtual void run(AnalysisContext &Ctx, llvm::Function *F, KernelReport &K) = 0;
  /// Whether it evaluates addresses lane by lane (the costly analyses, which
  /// AnalyzerOptions::MaxInstantiations limits).
  virtual bool evaluatesLanes() const { return true; }
};

/// The analyses cudaperf-analyze runs, in order.
std::vector<std::unique_ptr<KernelAnalysis>> createDefaultAnalyses();

/// Resolves K.Launch from launch sites, command-line overrides, __launch_bounds__ or the default
/// block, in that order of precedence, and records known scalar parameters.
void resolveLaunchConfig(KernelReport &K, const AnalyzerOptions &Opts);

/// What makes a launch fail before the kernel runs, from the parts of \p S that are known: a grid
/// or block dimension below 1 or above the device limits, more than 1024 threads per block,
/// negative dynamic shared memory, and -- for an evaluated launch (--task), which knows the
/// kernel's cudaFuncSetAttribute -- dynamic shared memory above the kernel's limit. Empty: none.
std::vector<std::string> launchConfigProblems(const LaunchSite &S);

/// Runs the launch resolution and every default analysis on every kernel of a parsed file, then
/// the same analyses on \p AtLaunches: further reports of the file's kernels whose Launch is
/// already set (--task: one per distinct launch). Work shared per file (the resource compile) is
/// done once.
void analyzeModule(llvm::Module *M, std::vector<KernelReport> &Kernels, const AnalyzerOptions &Opts,
                   const std::vector<KernelReport *> &AtLaunches = {});

} // namespace cudaperf

#endif
