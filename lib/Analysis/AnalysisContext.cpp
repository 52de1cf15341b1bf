#include "cudaperf/Analysis/AnalysisContext.h"
#include "cudaperf/Analysis/MemoryAccesses.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"

namespace cudaperf {

KernelAnalysis::~KernelAnalysis() = default;

AnalysisContext::AnalysisContext(llvm::Module &M, const AnalyzerOptions &Opts)
    : M(M), Opts(Opts), FAM(std::make_unique<llvm::FunctionAnalysisManager>()),
      LAM(std::make_unique<llvm::LoopAnalysisManager>()),
      CGAM(std::make_unique<llvm::CGSCCAnalysisManager>()),
      MAM(std::make_unique<llvm::ModuleAnalysisManager>()) {
  llvm::PassBuilder PB;
  PB.registerModuleAnalyses(*MAM);
  PB.registerCGSCCAnalyses(*CGAM);
  PB.registerFunctionAnalyses(*FAM);
  PB.registerLoopAnalyses(*LAM);
  PB.crossRegisterProxies(*LAM, *FAM, *CGAM, *MAM);
}

AnalysisContext::~AnalysisContext() {
  if (Faulted) {
    // A fault may have left the caches half updated; destroying them could fault again, outside
    // any isolation. The process ends soon after: leak them.
    (void)FAM.release();
    (void)LAM.release();
    (void)CGAM.release();
    (void)MAM.release();
    for (auto &[F, Inv] : Inventories)
      (void)Inv.release();
    return;
  }
  // Analysis results refer to each other through the proxies; clear before destruction.
  FAM->clear();
  MAM->clear();
}

void AnalysisContext::forgetAfterFault(llvm::Function &F) {
  Faulted = true;
  auto It = Inventories.find(&F);
  if (It != Inventories.end()) {
    (void)It->second.release();
    Inventories.erase(It);
  }
  FAM->clear(F, F.getName());
}

llvm::Function *AnalysisContext::kernelFunction(const KernelReport &K) const {
  llvm::Function *F = M.getFunction(K.MangledName);
  return F && !F->isDeclaration() ? F : nullptr;
}

const MemoryInventory &AnalysisContext::memoryAccesses(llvm::Function &F) {
  std::unique_ptr<MemoryInventory> &Slot = Inventories[&F];
  if (!Slot)
    Slot = std::make_unique<MemoryInventory>(collectMemoryAccesses(F));
  return *Slot;
}

} // namespace cudaperf
