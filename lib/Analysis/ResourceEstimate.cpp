//===- ResourceEstimate.cpp - Resources from clang's device IR when no NVIDIA compiler runs ----===//
//
// A stand-in, reported as "source": "estimate". Registers: the peak number of 32-bit registers
// that SSA values hold at once (classic backward liveness over the CFG; 64-bit values and
// pointers count 2, vectors per element, i1 predicates 0), plus 2 for what ptxas keeps besides
// (measured error against ptxas on the corpus: docs/resources.md). Shared memory: addrspace(3)
// globals the kernel or a function it calls references. Local memory: its static allocas.
// Barriers: the highest barrier id used plus one.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/Resources.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include <algorithm>

namespace cudaperf {

namespace {

constexpr int RegistersPtxasReserves = 2;
constexpr unsigned SharedAddressSpace = 3;

int registersFor(llvm::Type *T, const llvm::DataLayout &DL) {
  if (T->isVoidTy() || T->isLabelTy() || T->isMetadataTy() || T->isTokenTy())
    return 0;
  if (T->isIntegerTy(1))
    return 0; // predicates have their own register file
  if (auto *V = llvm::dyn_cast<llvm::FixedVectorType>(T))
    return int(V->getNumElements()) * std::max(1, registersFor(V->getElementType(), DL));
  if (T->isStructTy() || T->isArrayTy())
    return int((DL.getTypeAllocSize(T).getFixedValue() + 3) / 4);
  uint64_t Bits = DL.getTypeSizeInBits(T).getFixedValue();
  return int(std::max<uint64_t>(1, (Bits + 31) / 32));
}

bool tracked(const llvm::Value *V) {
  return llvm::isa<llvm::Instruction>(V) || llvm::isa<llvm::Argument>(V);
}

int peakLiveRegisters(const llvm::Function &F) {
  const llvm::DataLayout &DL = F.getParent()->getDataLayout();
  using ValueSet = llvm::DenseSet<const llvm::Value *>;
  llvm::DenseMap<const llvm::BasicBlock *, ValueSet> LiveIn, LiveOut;

  std::vector<const llvm::BasicBlock *> Blocks;
  for (const llvm::BasicBlock &B : F)
    Blocks.push_back(&B);
  // Backward liveness to a fixed point; a phi's operand is live out of its incoming block only.
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const llvm::BasicBlock *BP : llvm::reverse(Blocks)) {
      const llvm::BasicBlock &B = *BP;
      ValueSet Out;
      for (const llvm::BasicBlock *S : llvm::successors(&B)) {
        for (const llvm::Value *V : LiveIn[S])
          Out.insert(V);
        for (const llvm::PHINode &Phi : S->phis()) {
          Out.erase(&Phi);
          const llvm::Value *In = Phi.getIncomingValueForBlock(&B);
          if (In && tracked(In))
            Out.insert(In);
        }
      }
      ValueSet In = Out;
      for (auto I = B.rbegin(); I != B.rend(); ++I) {
        In.erase(&*I);
        if (llvm::isa<llvm::PHINode>(*I))
          continue;
        for (const llvm::Value *Op : I->operands())
          if (tracked(Op))
            In.insert(Op);
      }
      for (const llvm::PHINode &Phi : B.phis())
        In.insert(&Phi); // defined on entry to the block
      if (Out.size() != LiveOut[&B].size() || In.size() != LiveIn[&B].size()) {
        LiveOut[&B] = std::move(Out);
        LiveIn[&B] = std::move(In);
        Changed = true;
      }
    }
  }

  int Peak = 0;
  for (const llvm::BasicBlock &B : F) {
    ValueSet Live = LiveOut[&B];
    auto Weight = [&] {
      int W = 0;
      for (const llvm::Value *V : Live)
        W += registersFor(V->getType(), DL);
      return W;
    };
    Peak = std::max(Peak, Weight());
    for (auto I = B.rbegin(); I != B.rend(); ++I) {
      if (llvm::isa<llvm::PHINode>(*I))
        break;
      Live.erase(&*I);
      for (const llvm::Value *Op : I->operands())
        if (tracked(Op))
          Live.insert(Op);
      Peak = std::max(Peak, Weight());
    }
  }
  return Peak;
}

/// The functions \p F calls directly or transitively (device functions that were not inlined).
void collectCallees(const llvm::Function &F, llvm::SmallPtrSetImpl<const llvm::Function *> &Seen) {
  if (!Seen.insert(&F).second)
    return;
  for (const llvm::BasicBlock &B : F)
    for (const llvm::Instruction &I : B)
      if (const auto *CB = llvm::dyn_cast<llvm::CallBase>(&I))
        if (const llvm::Function *Callee = CB->getCalledFunction(); Callee && !Callee->isDeclaration())
          collectCallees(*Callee, Seen);
}

bool usedBy(const llvm::Value *V, const llvm::SmallPtrSetImpl<const llvm::Function *> &Fns) {
  for (const llvm::User *U : V->users()) {
    if (const auto *I = llvm::dyn_cast<llvm::Instruction>(U)) {
      if (Fns.count(I->getFunction()))
        return true;
    } else if (llvm::isa<llvm::Constant>(U) && usedBy(U, Fns)) {
      return true;
    }
  }
  return false;
}

} // namespace

KernelResourceUsage estimateResources(const llvm::Function &Kernel) {
  KernelResourceUsage U;
  const llvm::Module &M = *Kernel.getParent();
  const llvm::DataLayout &DL = M.getDataLayout();
  llvm::SmallPtrSet<const llvm::Function *, 8> Fns;
  collectCallees(Kernel, Fns);

  for (const llvm::GlobalVariable &G : M.globals())
    if (G.getAddressSpace() == SharedAddressSpace && usedBy(&G, Fns))
      U.StaticSharedBytes += int(DL.getTypeAllocSize(G.getValueType()).getFixedValue());

  int MaxBarrierId = -1;
  for (const llvm::Function *F : Fns) {
    U.Registers = std::max(U.Registers, peakLiveRegisters(*F));
    for (const llvm::BasicBlock &B : *F)
      for (const llvm::Instruction &I : B) {
        if (const auto *A = llvm::dyn_cast<llvm::AllocaInst>(&I)) {
          if (auto Size = A->getAllocationSize(DL))
            U.StackFrameBytes += int(Size->getFixedValue());
        } else if (const auto *Call = llvm::dyn_cast<llvm::IntrinsicInst>(&I)) {
          llvm::StringRef Name = Call->getCalledFunction()->getName();
          if (!Name.starts_with("llvm.nvvm.barrier"))
            continue;
          // clang 22's llvm.nvvm.barrier.cta.* take the barrier id first (0 for __syncthreads and
          // its reduction forms); the cluster barriers take none.
          int Id = 0;
          if (Call->arg_size() >= 1)
            if (const auto *C = llvm::dyn_cast<llvm::ConstantInt>(Call->getArgOperand(0)))
              Id = int(C->getZExtValue());
          MaxBarrierId = std::max(MaxBarrierId, Id);
        }
      }
  }
  U.Barriers = MaxBarrierId + 1;
  U.Registers = std::min(255, U.Registers + RegistersPtxasReserves);
  return U;
}

} // namespace cudaperf
