//===- MemoryAccesses.cpp - Inventory of a kernel's memory instructions ---===//
#include "cudaperf/Analysis/MemoryAccesses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace cudaperf {

const char *toString(MemorySpace S) {
  switch (S) {
  case MemorySpace::Global: return "global";
  case MemorySpace::Shared: return "shared";
  case MemorySpace::Local: return "local";
  case MemorySpace::Constant: return "constant";
  case MemorySpace::Param: return "param";
  case MemorySpace::Generic: return "generic";
  case MemorySpace::Texture: return "texture";
  case MemorySpace::Surface: return "surface";
  }
  return "generic";
}

const char *toString(AccessKind K) {
  switch (K) {
  case AccessKind::Load: return "load";
  case AccessKind::Store: return "store";
  case AccessKind::Atomic: return "atomic";
  }
  return "load";
}

SourceLocation sourceLocationOf(const Instruction &I) {
  SourceLocation Loc;
  const Instruction *Cur = &I;
  while (Cur && !Cur->getDebugLoc())
    Cur = Cur->getPrevNode();
  if (!Cur)
    return Loc;
  const DILocation *DL = Cur->getDebugLoc().get();
  // Code inlined from a header (atomicAdd, __ldg wrappers ...) is reported at its call in the
  // kernel's own file: the innermost location in the file of the outermost one.
  const DILocation *Outer = DL;
  while (Outer->getInlinedAt())
    Outer = Outer->getInlinedAt();
  while (DL->getInlinedAt() && DL->getFilename() != Outer->getFilename())
    DL = DL->getInlinedAt();
  Loc.File = DL->getFilename().str();
  Loc.Line = DL->getLine();
  Loc.Column = DL->getColumn();
  return Loc;
}

namespace {

// NVPTX address spaces.
enum : unsigned { ASGeneric = 0, ASGlobal = 1, ASShared = 3, ASConstant = 4, ASLocal = 5, ASParam = 101 };

std::optional<MemorySpace> spaceOfAddrSpace(unsigned AS) {
  switch (AS) {
  case ASGlobal: return MemorySpace::Global;
  case ASShared: return MemorySpace::Shared;
  case ASConstant: return MemorySpace::Constant;
  case ASLocal: return MemorySpace::Local;
  case ASParam: return MemorySpace::Param;
  default: return std::nullopt;
  }
}

struct BaseFinder {
  /// Set for the nested walk that asks whether a loaded pointer was read from a by-value
  /// parameter. A load never yields param space, so the nested walk does not look through loads
  /// again: pointer-chasing loops (p = p->next) would otherwise recurse without end.
  bool InsideLoadedPointer = false;
  SmallPtrSet<const Value *, 16> Visited;
  SmallVector<std::pair<MemorySpace, BaseKind>, 4> Found;
  const Value *First = nullptr;

  void add(MemorySpace S, BaseKind K, const Value *V) {
    if (!First)
      First = V;
    Found.push_back({S, K});
  }

  // An integer that is a pointer plus an offset: follow the pointer.
  const Value *pointerInsideInteger(const Value *V, unsigned Depth = 0) {
    if (Depth > 6)
      return nullptr;
    if (const auto *P2I = dyn_cast<PtrToIntOperator>(V))
      return P2I->getPointerOperand();
    if (const auto *BO = dyn_cast<BinaryOperator>(V)) {
      if (BO->getOpcode() == Instruction::Add || BO->getOpcode() == Instruction::Sub ||
          BO->getOpcode() == Instruction::Or || BO->getOpcode() == Instruction::And)
        if (const Value *P = pointerInsideInteger(BO->getOperand(0), Depth + 1))
          return P;
      if (BO->getOpcode() == Instruction::Add)
        return pointerInsideInteger(BO->getOperand(1), Depth + 1);
    }
    return nullptr;
  }

  /// Depth-first over the values \p Start is derived from, with an explicit stack: GEP chains and
  /// phi webs of unrolled code can be thousands deep.
  void walk(const Value *Start) {
    SmallVector<const Value *, 16> Stack = {Start};
    while (!Stack.empty()) {
      const Value *V = Stack.pop_back_val();
      if (Visited.insert(V).second)
        visit(V, Stack);
    }
  }

  /// Records \p V as a base or pushes what it is derived from (in reverse, so that the first
  /// operand is visited first).
  void visit(const Value *V, SmallVectorImpl<const Value *> &Stack) {
    if (auto S = spaceOfAddrSpace(V->getType()->isPointerTy() ? V->getType()->getPointerAddressSpace()
                                                               : ASGeneric)) {
      // A typed address space is authoritative; still find the base kind below when cheap.
      if (isa<GlobalVariable>(V))
        return add(*S, BaseKind::Variable, V);
      if (isa<AllocaInst>(V))
        return add(*S, BaseKind::Alloca, V);
    }
    if (const auto *GEP = dyn_cast<GEPOperator>(V))
      return Stack.push_back(GEP->getPointerOperand());
    if (const auto *Op = dyn_cast<Operator>(V)) {
      if (Op->getOpcode() == Instruction::BitCast || Op->getOpcode() == Instruction::AddrSpaceCast)
        return Stack.push_back(Op->getOperand(0));
      if (Op->getOpcode() == Instruction::IntToPtr) {
        if (const Value *P = pointerInsideInteger(Op->getOperand(0)))
          return Stack.push_back(P);
        return add(MemorySpace::Generic, BaseKind::Unknown, V);
      }
    }
    if (const auto *Sel = dyn_cast<SelectInst>(V)) {
      Stack.push_back(Sel->getFalseValue());
      return Stack.push_back(Sel->getTrueValue());
    }
    if (const auto *Phi = dyn_cast<PHINode>(V)) {
      for (unsigned I = Phi->getNumIncomingValues(); I-- > 0;)
        Stack.push_back(Phi->getIncomingValue(I));
      return;
    }
    if (const auto *Arg = dyn_cast<Argument>(V)) {
      if (Arg->hasByValAttr())
        return add(MemorySpace::Param, BaseKind::KernelParam, V);
      return add(MemorySpace::Global, BaseKind::KernelParam, V);
    }
    if (const auto *GV = dyn_cast<GlobalVariable>(V)) {
      auto S = spaceOfAddrSpace(GV->getAddressSpace());
      return add(S ? *S : MemorySpace::Global, BaseKind::Variable, V);
    }
    if (isa<AllocaInst>(V))
      return add(MemorySpace::Local, BaseKind::Alloca, V);
    if (const auto *LI = dyn_cast<LoadInst>(V)) {
      // A pointer field of a by-value struct parameter is a kernel argument, not data.
      if (!InsideLoadedPointer && pointsIntoParamSpace(LI->getPointerOperand()))
        return add(MemorySpace::Global, BaseKind::KernelParam, V);
      // A device pointer stored in memory points to global memory in practice.
      return add(MemorySpace::Global, BaseKind::LoadedPointer, V);
    }
    if (const auto *II = dyn_cast<IntrinsicInst>(V))
      if (II->getIntrinsicID() == Intrinsic::nvvm_ldu_global_p)
        return add(MemorySpace::Global, BaseKind::LoadedPointer, V);
    add(MemorySpace::Generic, BaseKind::Unknown, V);
  }

  static bool pointsIntoParamSpace(const Value *Ptr) {
    BaseFinder Nested;
    Nested.InsideLoadedPointer = true;
    Nested.walk(Ptr);
    return !Nested.Found.empty() &&
           llvm::all_of(Nested.Found, [](const auto &F) { return F.first == MemorySpace::Param; });
  }
};

unsigned storeBytes(const DataLayout &DL, Type *T) {
  return static_cast<unsigned>(DL.getTypeStoreSize(T).getFixedValue());
}

std::optional<AccessKind> kindOfIntrinsic(const IntrinsicInst &II, unsigned &PtrArg) {
  PtrArg = 0;
  switch (II.getIntrinsicID()) {
  case Intrinsic::nvvm_ldu_global_i:
  case Intrinsic::nvvm_ldu_global_f:
  case Intrinsic::nvvm_ldu_global_p:
    return AccessKind::Load;
  default:
    break;
  }
  StringRef Name = II.getCalledFunction() ? II.getCalledFunction()->getName() : "";
  if (Name.starts_with("llvm.nvvm.atomic"))
    return AccessKind::Atomic;
  return std::nullopt;
}

struct Collector {
  Function &F;
  const DataLayout &DL;
  MemoryInventory Inv;

  explicit Collector(Function &F) : F(F), DL(F.getParent()->getDataLayout()) {}

  void finish(MemoryInstruction &M) {
    BaseKind K;
    const Value *B = nullptr;
    M.Space = resolveBase(M.Pointer, K, B);
    M.Base = K;
    M.BaseValue = const_cast<Value *>(B);
    M.Loc = sourceLocationOf(*M.inst());
    Inv.Accesses.push_back(std::move(M));
  }

  void addSimple(Instruction *I, Value *Ptr, AccessKind K, unsigned Bytes, unsigned Align) {
    MemoryInstruction M;
    M.Insts.push_back(I);
    M.Pointer = Ptr;
    M.Kind = K;
    M.Bytes = Bytes;
    M.Align = Align;
    finish(M);
  }

  void addMemTransfer(MemIntrinsic *MI) {
    auto *Len = dyn_cast<ConstantInt>(MI->getLength());
    unsigned Align = MI->getDestAlign() ? MI->getDestAlign()->value() : 1;
    if (auto *MT = dyn_cast<MemTransferInst>(MI))
      Align = std::min<unsigned>(Align, MT->getSourceAlign() ? MT->getSourceAlign()->value() : 1);
    unsigned Chunk = 1, Count = 1;
    std::string Note;
    if (Len && Len->getZExtValue() > 0) {
      uint64_t N = Len->getZExtValue();
      Chunk = 16;
      while (Chunk > 1 && (N % Chunk != 0 || Align < Chunk))
        Chunk /= 2;
      Count = static_cast<unsigned>(N / Chunk);
      Note = (MI->getIntrinsicID() == Intrinsic::memset ? "memset of " : "memcpy of ") +
             std::to_string(N) + " bytes as " + std::to_string(Count) + " access(es) of " +
             std::to_string(Chunk) + " bytes";
    } else {
      Note = "memory intrinsic of unknown length: one access of 1 byte counted";
    }
    auto Add = [&](Value *Ptr, AccessKind K) {
      MemoryInstruction M;
      M.Insts.push_back(MI);
      M.Pointer = Ptr;
      M.Kind = K;
      M.Bytes = Chunk;
      M.Count = Count;
      M.Align = Align;
      M.Note = Note;
      finish(M);
    };
    if (auto *MT = dyn_cast<MemTransferInst>(MI))
      Add(MT->getRawSource(), AccessKind::Load);
    Add(MI->getRawDest(), AccessKind::Store);
  }

  // Plain loads/stores of one block, grouped the way the back end vectorizes them.
  struct Plain {
    Instruction *I;
    Value *Ptr;
    bool IsLoad;
    unsigned Bytes;
    unsigned Align;
    const Value *Base;
    int64_t Offset;
    unsigned ElementBytes = 0; // of a vector type; the size for scalars
  };

  void flushGroup(std::vector<Plain> &G, bool Combine) {
    size_t I = 0;
    while (I < G.size()) {
      size_t Best = I;
      unsigned BestBytes = G[I].Bytes;
      if (Combine) {
        unsigned Sum = 0;
        for (size_t J = I; J < G.size() && Sum + G[J].Bytes <= 16; ++J) {
          Sum += G[J].Bytes;
          if (isPowerOf2_32(Sum) && G[I].Align >= Sum && J > I) {
            Best = J;
            BestBytes = Sum;
          }
        }
      }
      // A misaligned vector access is split into pieces of its alignment (at least one element).
      unsigned Piece = BestBytes, Pieces = 1;
      if (Best == I && G[I].Align < BestBytes && G[I].ElementBytes < BestBytes) {
        Piece = std::max(G[I].ElementBytes, G[I].Align);
        while (BestBytes % Piece != 0)
          Piece /= 2;
        Pieces = BestBytes / std::max(1u, Piece);
      }
      for (unsigned P = 0; P < Pieces; ++P) {
        MemoryInstruction M;
        for (size_t J = I; J <= Best; ++J)
          M.Insts.push_back(G[J].I);
        M.Pointer = G[I].Ptr;
        M.Offset = int64_t(P) * Piece;
        M.Kind = G[I].IsLoad ? AccessKind::Load : AccessKind::Store;
        M.Bytes = Piece;
        M.Align = G[I].Align;
        if (Best > I)
          M.Note = std::to_string(Best - I + 1) + " adjacent accesses combined into one " +
                   std::to_string(BestBytes) + "-byte vector access";
        if (Pieces > 1)
          M.Note = "a " + std::to_string(BestBytes) + "-byte vector access aligned to " +
                   std::to_string(G[I].Align) + " bytes, split into " + std::to_string(Pieces) +
                   " accesses of " + std::to_string(Piece) + " bytes";
        finish(M);
      }
      I = Best + 1;
    }
    G.clear();
  }

  void run(bool Combine) {
    for (BasicBlock &BB : F) {
      std::vector<Plain> Group;
      for (Instruction &I : BB) {
        std::optional<Plain> P;
        if (auto *LI = dyn_cast<LoadInst>(&I); LI && LI->isSimple())
          P = Plain{&I, LI->getPointerOperand(), true, storeBytes(DL, LI->getType()),
                    static_cast<unsigned>(LI->getAlign().value()), nullptr, 0};
        else if (auto *SI = dyn_cast<StoreInst>(&I); SI && SI->isSimple())
          P = Plain{&I, SI->getPointerOperand(), false,
                    storeBytes(DL, SI->getValueOperand()->getType()),
                    static_cast<unsigned>(SI->getAlign().value()), nullptr, 0};
        if (P) {
          Type *T = P->IsLoad ? I.getType() : cast<StoreInst>(I).getValueOperand()->getType();
          // The smallest piece the back end may split a misaligned access into.
          P->ElementBytes = T->isVectorTy() ? storeBytes(DL, T->getScalarType()) : 1;
          if (T->isVectorTy() && P->Align < P->Bytes) {
            flushGroup(Group, Combine); // never combined with neighbours
            Group.push_back(*P);
            flushGroup(Group, Combine);
            continue;
          }
          P->Base = GetPointerBaseWithConstantOffset(P->Ptr, P->Offset, DL);
          bool Extends = !Group.empty() && Group.back().IsLoad == P->IsLoad &&
                         Group.back().Base == P->Base &&
                         Group.back().Offset + int64_t(Group.back().Bytes) == P->Offset;
          if (!Extends)
            flushGroup(Group, Combine);
          Group.push_back(*P);
          continue;
        }
        // Texture fetches are inline PTX that LLVM sees as reading no memory.
        auto *CB = dyn_cast<CallBase>(&I);
        if (!I.mayReadOrWriteMemory() && !(CB && isa<InlineAsm>(CB->getCalledOperand())))
          continue;
        flushGroup(Group, Combine);
        if (CB && !I.mayReadOrWriteMemory()) {
          addTextureOrSurface(*CB);
          continue;
        }
        visitOther(I);
      }
      flushGroup(Group, Combine);
    }
  }

  /// A texture fetch (inline PTX tex.* / tld4.*, as clang's texture intrinsics write it, or the
  /// built-in headers' __cudaperf_texture_fetch) or a surface access (a call of
  /// cudaperf_nvcc_compat.h's __cudaperf_surface_load/store).
  bool addTextureOrSurface(CallBase &CB) {
    MemorySpace Space;
    AccessKind Kind = AccessKind::Load;
    Type *T = CB.getType();
    if (const auto *Asm = dyn_cast<InlineAsm>(CB.getCalledOperand())) {
      StringRef S = StringRef(Asm->getAsmString()).ltrim();
      if (!S.starts_with("tex.") && !S.starts_with("tld4."))
        return false;
      Space = MemorySpace::Texture;
    } else if (Function *Callee = CB.getCalledFunction()) {
      StringRef N = Callee->getName();
      if (N.contains("__cudaperf_texture_fetch")) {
        Space = MemorySpace::Texture;
      } else if (N.contains("__cudaperf_surface_load")) {
        Space = MemorySpace::Surface;
      } else if (N.contains("__cudaperf_surface_store") && CB.arg_size() > 0) {
        Space = MemorySpace::Surface;
        Kind = AccessKind::Store;
        T = CB.getArgOperand(0)->getType();
      } else {
        return false;
      }
    } else {
      return false;
    }
    MemoryInstruction M;
    M.Insts.push_back(&CB);
    M.Pointer = CB.arg_size() ? CB.getArgOperand(Kind == AccessKind::Store ? 1 : 0) : nullptr;
    M.Kind = Kind;
    M.Bytes = T->isSized() ? storeBytes(DL, T) : 0;
    M.Align = M.Bytes ? M.Bytes : 1;
    M.Space = Space;
    M.Base = BaseKind::Unknown;
    M.Loc = sourceLocationOf(CB);
    Inv.Accesses.push_back(std::move(M));
    return true;
  }

  /// Inline PTX that names no memory instruction (reads of %globaltimer, %smid, shuffles written
  /// by hand ...) touches no memory.
  static bool asmMayAccessMemory(const InlineAsm &Asm) {
    StringRef S = Asm.getAsmString();
    for (StringRef Op : {"ld.", "st.", "atom", "red.", "cp.", "tex.", "tld4", "suld", "sust", "sured",
                         "mbarrier", "prefetch", "cvta", "wgmma", "ldmatrix", "stmatrix", "tma", "bulk"})
      if (S.contains(Op))
        return true;
    return Asm.hasSideEffects() && S.trim().empty();
  }

  void visitOther(Instruction &I) {
    if (auto *LI = dyn_cast<LoadInst>(&I))
      return addSimple(&I, LI->getPointerOperand(), AccessKind::Load, storeBytes(DL, LI->getType()),
                       LI->getAlign().value());
    if (auto *SI = dyn_cast<StoreInst>(&I))
      return addSimple(&I, SI->getPointerOperand(), AccessKind::Store,
                       storeBytes(DL, SI->getValueOperand()->getType()), SI->getAlign().value());
    if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
      return addSimple(&I, RMW->getPointerOperand(), AccessKind::Atomic,
                       storeBytes(DL, RMW->getValOperand()->getType()), RMW->getAlign().value());
    if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
      return addSimple(&I, CX->getPointerOperand(), AccessKind::Atomic,
                       storeBytes(DL, CX->getNewValOperand()->getType()), CX->getAlign().value());
    if (auto *MI = dyn_cast<MemIntrinsic>(&I))
      return addMemTransfer(MI);
    if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      unsigned PtrArg = 0;
      if (auto K = kindOfIntrinsic(*II, PtrArg)) {
        Type *T = *K == AccessKind::Load ? II->getType() : II->getArgOperand(1)->getType();
        unsigned Bytes = storeBytes(DL, T);
        unsigned Align = Bytes;
        if (II->arg_size() > 1)
          if (auto *A = dyn_cast<ConstantInt>(II->getArgOperand(1)); A && *K == AccessKind::Load)
            Align = static_cast<unsigned>(A->getZExtValue());
        return addSimple(&I, II->getArgOperand(PtrArg), *K, Bytes, Align);
      }
      return; // barriers, fences, sreg reads ... are not data accesses
    }
    if (auto *CB = dyn_cast<CallBase>(&I)) {
      Function *Callee = CB->getCalledFunction();
      // libdevice math (__nv_*) is not linked; it touches no user memory.
      if (Callee && Callee->getName().starts_with("__nv_"))
        return;
      if (addTextureOrSurface(*CB))
        return;
      if (const auto *Asm = dyn_cast<InlineAsm>(CB->getCalledOperand()); Asm && !asmMayAccessMemory(*Asm))
        return; // special-register reads (%globaltimer, %smid ...), arithmetic
      OpaqueCall C;
      C.Call = CB;
      C.Callee = Callee ? Callee->getName().str() : "";
      C.Loc = sourceLocationOf(I);
      Inv.Calls.push_back(std::move(C));
    }
  }
};

} // namespace

MemorySpace resolveBase(const Value *Ptr, BaseKind &Kind, const Value *&BaseValue) {
  BaseFinder Finder;
  Finder.walk(Ptr);
  BaseValue = Finder.First;
  if (Finder.Found.empty()) {
    Kind = BaseKind::Unknown;
    return MemorySpace::Generic;
  }
  MemorySpace S = Finder.Found.front().first;
  Kind = Finder.Found.front().second;
  for (const auto &[FS, FK] : Finder.Found) {
    if (FS != S)
      S = MemorySpace::Generic;
    if (FK == BaseKind::LoadedPointer || FK == BaseKind::Unknown)
      Kind = FK;
  }
  return S;
}

MemoryInventory collectMemoryAccesses(Function &F, bool CombineVectors) {
  Collector C(F);
  C.run(CombineVectors);
  return std::move(C.Inv);
}

} // namespace cudaperf
