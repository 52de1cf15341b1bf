//===- Analyzer.cpp - The analyses cudaperf-analyze runs, in order --------===//
//
// To add an analysis: write lib/Analysis/<Name>.cpp with a KernelAnalysis subclass and a
// `std::unique_ptr<KernelAnalysis> create<Name>Analysis()` factory, declare the factory below and
// add it to createDefaultAnalyses in the order its inputs require.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/AnalysisContext.h"
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

void analyzeModule(llvm::Module *M, std::vector<KernelReport> &Kernels,
                   const AnalyzerOptions &Opts, const std::vector<KernelReport *> &AtLaunches) {
  for (KernelReport &K : Kernels)
    resolveLaunchConfig(K, Opts);
  if (!M)
    return;
  AnalyzerOptions FileOpts = Opts;
  FileOpts.EstimateResourcesOnly |= Kernels.size() > Opts.MaxKernels;
  AnalysisContext Ctx(*M, FileOpts);
  auto Analyses = createDefaultAnalyses();
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
    for (auto &A : Analyses)
      A->run(Ctx, F, K);
  }
  for (KernelReport *K : AtLaunches) {
    llvm::Function *F = Ctx.kernelFunction(*K);
    if (!F)
      K->Notes.push_back("no device code was generated for this kernel");
    for (auto &A : Analyses)
      A->run(Ctx, F, *K);
  }
}

} // namespace cudaperf
