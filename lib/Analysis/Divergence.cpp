#include "cudaperf/Analysis/Divergence.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace cudaperf {

namespace {

/// Calls whose result is the same for every thread of a block given uniform arguments.
bool isUniformCall(const CallBase &C) {
  const Function *Callee = C.getCalledFunction();
  if (!Callee)
    return false;
  StringRef N = Callee->getName();
  if (N.starts_with("llvm.nvvm.read.ptx.sreg.")) {
    // tid and laneid differ between threads; clock and smid too.
    return N.contains(".ctaid.") || N.contains(".ntid.") || N.contains(".nctaid.") ||
           N.contains(".warpsize");
  }
  if (N.starts_with("llvm.nvvm.shfl") || N.starts_with("llvm.nvvm.vote") ||
      N.starts_with("llvm.nvvm.match") || N.starts_with("llvm.nvvm.redux") ||
      N.starts_with("llvm.nvvm.atomic") || N.starts_with("llvm.nvvm.barrier.cta.red.") ||
      N.starts_with("llvm.nvvm.read.ptx.sreg"))
    return false;
  // Pure functions of their arguments: math (libdevice __nv_*, LLVM intrinsics such as
  // llvm.fma, llvm.smax, ldg of a uniform address).
  return N.starts_with("__nv_") || N.starts_with("llvm.") ;
}

/// True when every incoming value of \p Phi is the same value for each thread whichever path it
/// came by: one value, or identical side-effect-free instructions (the optimiser duplicates reads
/// of blockDim into both sides of a branch, and a phi at the join merges the copies).
bool incomingValuesAgree(const PHINode &Phi) {
  const Value *First = Phi.getIncomingValue(0);
  const auto *FirstI = dyn_cast<Instruction>(First);
  for (unsigned K = 1; K < Phi.getNumIncomingValues(); ++K) {
    const Value *V = Phi.getIncomingValue(K);
    if (V == First)
      continue;
    const auto *I = dyn_cast<Instruction>(V);
    // Same operation on the same operands; attributes (noundef, !dbg) may differ between copies.
    if (!FirstI || !I || I->getOpcode() != FirstI->getOpcode() ||
        I->getType() != FirstI->getType() || I->mayReadOrWriteMemory() ||
        I->getNumOperands() != FirstI->getNumOperands() || isa<PHINode>(I))
      return false;
    for (unsigned Op = 0; Op < I->getNumOperands(); ++Op)
      if (I->getOperand(Op) != FirstI->getOperand(Op))
        return false;
    if (const auto *C = dyn_cast<CmpInst>(I))
      if (C->getPredicate() != cast<CmpInst>(FirstI)->getPredicate())
        return false;
  }
  return true;
}

/// Blocks where threads that took different successors of \p X meet again: a block with
/// predecessors reachable from two different successors of X (without passing X's immediate
/// post-dominator, where all paths have met).
SmallVector<const BasicBlock *, 4> joinBlocks(const BasicBlock *X, PostDominatorTree &PDT) {
  DomTreeNode *XNode = PDT.getNode(X);
  const BasicBlock *IPDom =
      XNode && XNode->getIDom() ? XNode->getIDom()->getBlock() : nullptr;
  DenseMap<const BasicBlock *, unsigned> ReachedFrom; // bit mask of X's successors
  unsigned Bit = 0;
  for (const BasicBlock *S : successors(X)) {
    unsigned Mask = 1u << (Bit++ % 32);
    SmallVector<const BasicBlock *, 16> Work{S};
    DenseSet<const BasicBlock *> Seen;
    while (!Work.empty()) {
      const BasicBlock *B = Work.pop_back_val();
      if (!Seen.insert(B).second || B == X)
        continue;
      ReachedFrom[B] |= Mask;
      if (B == IPDom)
        continue;
      for (const BasicBlock *N : successors(B))
        Work.push_back(N);
    }
  }
  SmallVector<const BasicBlock *, 4> Joins;
  for (const auto &[B, Mask] : ReachedFrom) {
    unsigned FromPreds = 0;
    for (const BasicBlock *P : predecessors(B)) {
      if (P == X) {
        // The edge X->B itself: B is reached from the successor that is B.
        unsigned I = 0;
        for (const BasicBlock *S : successors(X)) {
          if (S == B)
            FromPreds |= 1u << (I % 32);
          ++I;
        }
        continue;
      }
      auto It = ReachedFrom.find(P);
      if (It != ReachedFrom.end() && P != IPDom)
        FromPreds |= It->second;
    }
    if (FromPreds & (FromPreds - 1)) // two or more bits
      Joins.push_back(B);
  }
  return Joins;
}

} // namespace

DivergenceInfo::DivergenceInfo(Function &F, PostDominatorTree &PDT, LoopInfo &LI) {
  // Blocks control dependent on each branch block X: for each edge X->S where S does not
  // post-dominate X, S and its post-dominator ancestors up to (not including) ipdom(X).
  DenseMap<const BasicBlock *, SmallVector<const BasicBlock *, 8>> ControlDependents;
  for (BasicBlock &X : F) {
    const Instruction *T = X.getTerminator();
    if (!T || T->getNumSuccessors() < 2)
      continue;
    DomTreeNode *XNode = PDT.getNode(&X);
    DomTreeNode *Stop = XNode ? XNode->getIDom() : nullptr;
    auto &Deps = ControlDependents[&X];
    for (const BasicBlock *S : successors(&X)) {
      for (DomTreeNode *N = PDT.getNode(S); N && N != Stop; N = N->getIDom()) {
        if (!N->getBlock())
          break;
        if (llvm::find(Deps, N->getBlock()) == Deps.end())
          Deps.push_back(N->getBlock());
      }
    }
  }

  DenseSet<const BasicBlock *> JoinOfDivergent;
  auto hasDivergentExit = [&](const Loop *L) {
    SmallVector<BasicBlock *, 4> Exiting;
    L->getExitingBlocks(Exiting);
    for (const BasicBlock *E : Exiting)
      if (Divergent.contains(E->getTerminator()))
        return true;
    return false;
  };

  ReversePostOrderTraversal<Function *> RPOT(&F);
  bool Changed = true;
  while (Changed) {
    Changed = false;
    auto mark = [&](const Value *V) {
      if (Divergent.insert(V).second)
        Changed = true;
    };
    for (BasicBlock *BB : RPOT) {
      for (Instruction &I : *BB) {
        if (Divergent.contains(&I))
          continue;
        if (auto *Phi = dyn_cast<PHINode>(&I)) {
          // A phi merges values per thread: divergent if an incoming value is, if threads that
          // took different sides of a divergent branch meet here, or if it carries a value out of
          // a loop that threads leave after different numbers of iterations.
          bool D = JoinOfDivergent.contains(BB) && !incomingValuesAgree(*Phi);
          for (unsigned K = 0; K < Phi->getNumIncomingValues() && !D; ++K) {
            const Value *In = Phi->getIncomingValue(K);
            const BasicBlock *From = Phi->getIncomingBlock(K);
            D |= Divergent.contains(In);
            // Only a value defined inside the loop differs with the iteration count; one defined
            // before the loop (a uniform bound) is the same whenever a thread leaves.
            const auto *InI = dyn_cast<Instruction>(In);
            const Loop *L = InI ? LI.getLoopFor(InI->getParent()) : nullptr;
            if (L && L->contains(From) && !L->contains(BB) && hasDivergentExit(L))
              D = true;
          }
          if (D)
            mark(Phi);
          continue;
        }
        if (auto *C = dyn_cast<CallBase>(&I)) {
          if (!isUniformCall(*C)) {
            mark(C);
            continue;
          }
        }
        if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) {
          mark(&I);
          continue;
        }
        if (isa<AllocaInst>(I))
          continue; // each thread's own, but its address is uniform in the model
        bool D = false;
        for (const Value *Op : I.operands()) {
          D |= Divergent.contains(Op);
          // A value computed in a loop with a divergent exit, used after the loop.
          if (const auto *OpI = dyn_cast<Instruction>(Op))
            if (const Loop *L = LI.getLoopFor(OpI->getParent()))
              D |= !L->contains(&I) && hasDivergentExit(L);
        }
        // A load from a uniform address yields one value for the block; from a divergent one, not.
        if (D)
          mark(&I);
      }
    }
    // Blocks executed under a divergent branch, transitively.
    SmallVector<const BasicBlock *, 16> Work;
    for (BasicBlock &X : F) {
      const Instruction *T = X.getTerminator();
      bool DivergentBranch = false;
      if (const auto *Br = dyn_cast<BranchInst>(T))
        DivergentBranch = Br->isConditional() && Divergent.contains(Br->getCondition());
      else if (const auto *Sw = dyn_cast<SwitchInst>(T))
        DivergentBranch = Divergent.contains(Sw->getCondition());
      if (DivergentBranch && !Divergent.contains(T)) {
        Divergent.insert(T); // a terminator is "divergent" when its choice differs between threads
        Changed = true;
      }
      if (Divergent.contains(T)) {
        Work.push_back(&X);
        for (const BasicBlock *J : joinBlocks(&X, PDT))
          if (JoinOfDivergent.insert(J).second)
            Changed = true;
      }
    }
    while (!Work.empty()) {
      const BasicBlock *X = Work.pop_back_val();
      auto It = ControlDependents.find(X);
      if (It == ControlDependents.end())
        continue;
      const BasicBlock *Cause = DivergentBlocks.count(X) ? DivergentBlocks[X] : X;
      if (Divergent.contains(X->getTerminator()))
        Cause = X;
      for (const BasicBlock *D : It->second)
        if (DivergentBlocks.insert({D, Cause}).second) {
          Changed = true;
          Work.push_back(D);
        }
    }
  }
}

} // namespace cudaperf
