//===- LaneGuards.cpp - Which lanes of a warp execute a block --------------===//
#include "cudaperf/Analysis/LaneGuards.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace cudaperf {

namespace {
constexpr unsigned MaxGuards = 16; // dominating branches looked at per block
/// A lane guard selects lanes by their place in the block: its condition reads the thread index
/// and constants, loop counters and other values computed from them, never a kernel parameter,
/// blockIdx or memory. Bounds checks (`blockIdx.x * blockDim.x + threadIdx.x < n`) are not lane
/// guards: the partial warp they leave is the launch's business (launch_sectors_per_request).
bool isLaneGuardCondition(const Value *Cond) {
  SmallVector<const Value *, 16> Work{Cond};
  SmallPtrSet<const Value *, 32> Seen;
  bool ReadsThreadIdx = false;
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    if (Seen.size() > 256 || isa<Argument>(V) || isa<LoadInst>(V) || isa<GlobalValue>(V))
      return false;
    if (const auto *C = dyn_cast<CallBase>(V)) {
      const Function *F = C->getCalledFunction();
      StringRef N = F ? F->getName() : "";
      if (N.starts_with("llvm.nvvm.read.ptx.sreg.tid.") || N.starts_with("llvm.nvvm.read.ptx.sreg.laneid"))
        ReadsThreadIdx = true;
      else if (!N.starts_with("llvm.nvvm.read.ptx.sreg.ntid."))
        return false; // blockIdx, gridDim, anything else
      continue;
    }
    if (const auto *I = dyn_cast<Instruction>(V))
      for (const Value *Op : I->operands())
        if (!isa<Constant>(Op) || isa<GlobalValue>(Op))
          Work.push_back(Op);
  }
  return ReadsThreadIdx;
}

constexpr unsigned IgnoredFlags = LaneDataDependent | LaneUnknownParam | LaneUnsupported |
                                  LaneNonAffineRecurrence | LaneControlDependent;
} // namespace

LaneGuards::LaneGuards(Function &F, DominatorTree &DT, ScalarEvolution *SE, LoopInfo *LI,
                       const LaunchFacts &Facts)
    : DT(DT), E(F, SE, LI, Facts) {}

const SmallVector<std::pair<const Value *, bool>, 4> &LaneGuards::guardsOf(const BasicBlock *BB) {
  auto [It, New] = Guards.try_emplace(BB);
  if (!New || !DT.isReachableFromEntry(BB))
    return It->second;
  SmallVector<std::pair<const Value *, bool>, 4> Found;
  const DomTreeNode *Node = DT.getNode(BB);
  for (unsigned Depth = 0; Node && Node->getIDom() && Depth < MaxGuards; ++Depth) {
    const BasicBlock *D = Node->getIDom()->getBlock();
    Node = Node->getIDom();
    const auto *Br = dyn_cast<BranchInst>(D->getTerminator());
    if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1))
      continue;
    for (unsigned S = 0; S < 2; ++S)
      if (DT.dominates(BasicBlockEdge(D, Br->getSuccessor(S)), BB) &&
          isLaneGuardCondition(Br->getCondition()))
        Found.emplace_back(Br->getCondition(), S == 0);
  }
  // try_emplace may have rehashed nothing since; look the entry up again to be safe.
  return Guards[BB] = std::move(Found);
}

std::vector<bool> LaneGuards::activeLanes(const BasicBlock *BB, const WarpSample &S) {
  std::vector<bool> Active(S.Lanes.size(), true);
  const auto &G = guardsOf(BB);
  if (G.empty())
    return Active;
  E.setSample(S);
  for (const auto &[Cond, Want] : G) {
    E.resetFlags();
    LaneValues V = E.evaluate(Cond);
    if ((E.flags() & IgnoredFlags) || V.size() != Active.size())
      continue;
    for (size_t L = 0; L < Active.size(); ++L)
      if ((V[L] != 0) != Want)
        Active[L] = false;
  }
  return Active;
}

bool LaneGuards::hasLaneGuard(const BasicBlock *BB) {
  for (const auto &[Cond, Want] : guardsOf(BB)) {
    (void)Want;
    WarpSample S;
    S.Lanes = {{0, 0, 0}};
    E.setSample(S);
    E.resetFlags();
    E.evaluate(Cond);
    if ((E.flags() & LaneUsesThreadIdx) && !(E.flags() & IgnoredFlags))
      return true;
  }
  return false;
}

bool keepActiveLanes(LaneGuards &G, const BasicBlock *BB, SampledWarp &W) {
  std::vector<bool> Active = G.activeLanes(BB, W.Sample);
  if (Active.size() != W.Addresses.size())
    return !W.Addresses.empty();
  std::vector<int64_t> Addresses;
  std::vector<ThreadIndex> Lanes;
  for (size_t L = 0; L < Active.size(); ++L)
    if (Active[L]) {
      Addresses.push_back(W.Addresses[L]);
      Lanes.push_back(W.Sample.Lanes[L]);
    }
  W.Addresses = std::move(Addresses);
  W.Sample.Lanes = std::move(Lanes);
  return !W.Addresses.empty();
}

} // namespace cudaperf
