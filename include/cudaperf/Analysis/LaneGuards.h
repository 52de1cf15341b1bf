//===- LaneGuards.h - Which lanes of a warp execute a block ----*- C++ -*-===//
//
// A memory instruction under `if (threadIdx.x == 0)` or `if (lane < k)` runs on some lanes only;
// judging its sectors or banks over all 32 lanes reports a warp access that never happens. The
// guards of a block are the conditional branches whose one edge dominates it (the block runs only
// when the branch goes that way). Each guard's condition is evaluated for every lane of a sampled
// warp (LaneAddress.h); a lane is active when every guard that could be evaluated lets it through.
// Guards that depend on loaded data, unknown parameters or anything the evaluator cannot compute
// are ignored (their lanes stay active): a guard is never guessed.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_LANEGUARDS_H
#define CUDAPERF_ANALYSIS_LANEGUARDS_H

#include "cudaperf/Analysis/LaneAddress.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <utility>
#include <vector>

namespace llvm {
class BasicBlock;
class DominatorTree;
class Value;
} // namespace llvm

namespace cudaperf {

class LaneGuards {
public:
  LaneGuards(llvm::Function &F, llvm::DominatorTree &DT, llvm::ScalarEvolution *SE,
             llvm::LoopInfo *LI, const LaunchFacts &Facts);

  /// For each lane of \p S (in order): whether it executes \p BB. All true when no guard of \p BB
  /// could be evaluated.
  std::vector<bool> activeLanes(const llvm::BasicBlock *BB, const WarpSample &S);

  /// Whether \p BB has at least one guard whose condition depends on the thread index and could
  /// be evaluated (so that activeLanes may differ between lanes).
  bool hasLaneGuard(const llvm::BasicBlock *BB);

private:
  /// (condition, value it must have) for each guard of BB, innermost first.
  const llvm::SmallVector<std::pair<const llvm::Value *, bool>, 4> &guardsOf(const llvm::BasicBlock *BB);

  llvm::DominatorTree &DT;
  LaneEvaluator E;
  llvm::DenseMap<const llvm::BasicBlock *, llvm::SmallVector<std::pair<const llvm::Value *, bool>, 4>>
      Guards;
};

/// Keeps the lanes of \p W that LaneGuards says execute \p BB (its addresses and sample lanes).
/// Returns false when no lane is left.
bool keepActiveLanes(LaneGuards &G, const llvm::BasicBlock *BB, SampledWarp &W);

} // namespace cudaperf

#endif
