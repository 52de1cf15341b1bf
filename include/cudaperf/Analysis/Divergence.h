//===- Divergence.h - Which values and blocks differ between threads -*- C++ -*-===//
//
// A block-level divergence analysis for kernels: a value is divergent when threads of one block may
// see different values of it. LLVM's UniformityAnalysis is not used: without the NVPTX target it
// treats nothing as divergent, and with it every generic-address-space load is divergent.
//
// Sources: threadIdx, the lane id, warp shuffles/votes/matches (their results differ between lanes
// or warps), atomics' results, loads whose address is divergent, calls to unknown functions.
// Uniform: blockIdx, blockDim, gridDim, kernel parameters, constants, loads from uniform addresses.
// Propagation: through operands; to phis at the join points of divergent branches (including values
// leaving a loop whose exit is divergent); to blocks control dependent on a divergent branch,
// transitively.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_DIVERGENCE_H
#define CUDAPERF_ANALYSIS_DIVERGENCE_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace llvm {
class BasicBlock;
class Function;
class LoopInfo;
class PostDominatorTree;
class Value;
} // namespace llvm

namespace cudaperf {

class DivergenceInfo {
public:
  DivergenceInfo(llvm::Function &F, llvm::PostDominatorTree &PDT, llvm::LoopInfo &LI);

  bool isDivergent(const llvm::Value *V) const { return Divergent.contains(V); }
  /// True when threads of a block may disagree on whether \p BB executes (or how often).
  bool isDivergentlyExecuted(const llvm::BasicBlock *BB) const { return DivergentBlocks.count(BB); }
  /// The divergent branch that makes \p BB divergently executed (the nearest one found), or null.
  const llvm::BasicBlock *divergentCause(const llvm::BasicBlock *BB) const {
    auto It = DivergentBlocks.find(BB);
    return It == DivergentBlocks.end() ? nullptr : It->second;
  }

private:
  llvm::DenseSet<const llvm::Value *> Divergent;
  llvm::DenseMap<const llvm::BasicBlock *, const llvm::BasicBlock *> DivergentBlocks;
};

} // namespace cudaperf

#endif
