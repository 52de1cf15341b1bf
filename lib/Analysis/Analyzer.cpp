//===- Analyzer.cpp - The analyses cudaperf-analyze runs, in order --------===//
//
// To add an analysis: write lib/Analysis/<Name>.cpp with a KernelAnalysis subclass and a
// `std::unique_ptr<KernelAnalysis> create<Name>Analysis()` factory, declare the factory below and
// add it to createDefaultAnalyses in the order its inputs require.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/AnalysisContext.h"
#include "cudaperf/Analysis/FaultIsolation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Module.h"

namespace cudaperf {

// Factories of the analyses (one per file in lib/Analysis).
std::unique_ptr<KernelAnalysis> createCoalescingAnalysis();
std::unique_ptr<KernelAnalysis> createWorkAnalysis(); // after Coalescing: reads its sectors
std::unique_ptr<KernelAnalysis> createSynchronizationAnalysis();
std::unique_ptr<KernelAnalysis> createSharedMemoryAnalysis();
std::unique_ptr<KernelAnalysis> createResourcesAnalysis();
std::unique_ptr<KernelAnalysis> createOccupancyAnalysis(); // after Resources: reads K.Resources

std::vector<std::unique_ptr<KernelAnalysis>> createDefaultAnalyses() {
  std::vector<std::unique_ptr<KernelAnalysis>> A;
  A.push_back(createCoalescingAnalysis());
  A.push_back(createWorkAnalysis());
  A.push_back(createSharedMemoryAnalysis());
  A.push_back(createSynchronizationAnalysis());
  A.push_back(createResourcesAnalysis());
  A.push_back(createOccupancyAnalysis());
  return A;
}

namespace {

/// The analyses divide by and iterate over the launch's dimensions: whatever the launch-site
/// evaluation produced, they get a configuration that can launch. One that cannot is replaced
/// (the assumed block, an unknown grid) with a note.
void keepLaunchable(KernelReport &K, const AnalyzerOptions &Opts) {
  LaunchConfig &L = K.Launch;
  LaunchSite Block;
  Block.Block = L.Block;
  if (std::vector<std::string> P = launchConfigProblems(Block); !P.empty()) {
    K.Notes.push_back("block " + L.Block.str() + " (" + toString(L.Origin) + ") cannot launch (" +
                      P.front() + "); analysed with the assumed block " + Opts.AssumedBlock.str());
    L.Block = Opts.AssumedBlock;
  }
  LaunchSite Grid;
  Grid.Grid = L.Grid;
  if (std::vector<std::string> P = launchConfigProblems(Grid); !P.empty()) {
    K.Notes.push_back("grid " + L.Grid->str() + " (" + toString(L.Origin) + ") cannot launch (" +
                      P.front() + "); analysed with an unknown grid");
    L.Grid.reset();
  }
}

/// --inject-fault=KERNEL:KIND[:ANALYSIS], split.
struct FaultInjection {
  std::string Kernel, Kind, Analysis;
  bool matches(const KernelReport &K, llvm::StringRef A, llvm::StringRef First) const {
    bool KernelMatches = K.Name == Kernel || K.MangledName == Kernel ||
                         K.Name.substr(0, K.Name.find('<')) == Kernel;
    return KernelMatches && A == (Analysis.empty() ? First : llvm::StringRef(Analysis));
  }
};

std::optional<FaultInjection> parseInjection(llvm::StringRef Spec) {
  if (Spec.empty())
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  Spec.split(Parts, ':');
  if (Parts.size() < 2)
    return std::nullopt;
  return FaultInjection{Parts[0].str(), Parts[1].str(), Parts.size() > 2 ? Parts[2].str() : ""};
}

/// A fault in \p Analysis: its partial facts are dropped (\p Before), the fault is kept for the
/// report (check cudaperf-analysis-fault) and in the notes.
void recordFault(KernelReport &K, KernelReport Before, llvm::StringRef Analysis, const Fault &F) {
  K = std::move(Before);
  K.AnalysisFaults.push_back(AnalysisFault{Analysis.str(), F.Description});
  K.Notes.push_back("the " + Analysis.str() + " analysis stopped with a fault (" + F.Description +
                    "): its facts are missing; the other analyses and kernels are reported");
}

/// \p Analyses on one kernel, each isolated (a fault is recorded, the next analysis runs) and all
/// within one work budget; \p LaneAnalyses false skips those that evaluate lanes.
void runAnalyses(AnalysisContext &Ctx, const std::vector<std::unique_ptr<KernelAnalysis>> &Analyses,
                 llvm::Function *F, KernelReport &K, const WorkLimits &Limits, bool LaneAnalyses,
                 const std::optional<FaultInjection> &Inject) {
  WorkBudget Budget(Limits);
  ScopedWorkBudget Current(Budget);
  for (auto &A : Analyses) {
    if (!LaneAnalyses && A->evaluatesLanes())
      continue;
    Budget.setPhase(A->name().str());
    KernelReport Before = K;
    std::optional<Fault> Failed = runIsolated([&] {
      if (Inject && Inject->matches(K, A->name(), Analyses.front()->name()))
        injectFault(Inject->Kind);
      A->run(Ctx, F, K);
    });
    if (!Failed)
      continue;
    recordFault(K, std::move(Before), A->name(), *Failed);
    if (F)
      runIsolated([&] { Ctx.forgetAfterFault(*F); });
  }
  if (Budget.exhausted())
    K.Notes.push_back(Budget.note());
}

} // namespace

void analyzeModule(llvm::Module *M, std::vector<KernelReport> &Kernels,
                   const AnalyzerOptions &Opts, const std::vector<KernelReport *> &AtLaunches) {
  for (KernelReport &K : Kernels) {
    resolveLaunchConfig(K, Opts);
    keepLaunchable(K, Opts);
  }
  for (KernelReport *K : AtLaunches)
    keepLaunchable(*K, Opts);
  if (!M)
    return;
  AnalyzerOptions FileOpts = Opts;
  FileOpts.EstimateResourcesOnly |= Kernels.size() > Opts.MaxKernels;
  AnalysisContext Ctx(*M, FileOpts);
  auto Analyses = createDefaultAnalyses();
  std::optional<FaultInjection> Inject = parseInjection(Opts.InjectFault);
  std::map<std::string, unsigned> InstantiationsSeen; // by template name
  for (size_t I = 0; I < Kernels.size(); ++I) {
    KernelReport &K = Kernels[I];
    if (I >= Opts.MaxKernels) {
      K.Notes.push_back("not analysed: the file has " + std::to_string(Kernels.size()) +
                        " kernels and --max-kernels=" + std::to_string(Opts.MaxKernels) +
                        " analyses the first ones only");
      continue;
    }
    llvm::Function *F = Ctx.kernelFunction(K);
    if (!F)
      K.Notes.push_back("no device code was generated for this kernel");
    bool LaneAnalyses = true;
    if (size_t Open = K.Name.find('<'); Open != std::string::npos) {
      unsigned Seen = ++InstantiationsSeen[K.Name.substr(0, Open)];
      if (Seen > Opts.MaxInstantiations) {
        LaneAnalyses = false;
        K.Notes.push_back("memory, work and barrier analyses skipped: instantiation " +
                          std::to_string(Seen) + " of template kernel '" + K.Name.substr(0, Open) +
                          "' and --max-instantiations=" + std::to_string(Opts.MaxInstantiations) +
                          " (resources and occupancy are still reported)");
      }
    }
    runAnalyses(Ctx, Analyses, F, K, Opts.Limits, LaneAnalyses, Inject);
  }
  for (KernelReport *K : AtLaunches) {
    llvm::Function *F = Ctx.kernelFunction(*K);
    if (!F)
      K->Notes.push_back("no device code was generated for this kernel");
    runAnalyses(Ctx, Analyses, F, *K, Opts.Limits, /*LaneAnalyses=*/true, Inject);
  }
}

} // namespace cudaperf
