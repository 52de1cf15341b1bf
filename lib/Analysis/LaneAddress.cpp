//===- LaneAddress.cpp - Concrete per-lane evaluation of addresses --------===//
//
// Representative warps (why these): Nsight Compute reports the average over every warp of the
// launch, so a prediction is an average over warps that differ in what can change the count:
//   - the warp's place in its block (rows of a 2D block, the partial last warp): every warp when the
//     block has at most 8, else 8 spread evenly, always including the first and the last;
//   - the block index (alignment of block offsets): (0,0,0), (1,1,1), (2,3,2), (5,2,3), wrapped
//     into the grid when it is known;
//   - the loop iteration (alignment that changes between iterations): k = 0, 1, 2 inside loops.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/LaneAddress.h"
#include "cudaperf/Analysis/WorkBudget.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cctype>

using namespace llvm;

namespace cudaperf {

namespace {

constexpr Dim3 RepresentativeGrid{264, 4, 4};
constexpr int64_t FirstBase = int64_t(1) << 40;
constexpr int64_t BaseSpacing = int64_t(1) << 34;

int64_t canon(uint64_t V, unsigned Bits) {
  if (Bits == 0 || Bits >= 64)
    return static_cast<int64_t>(V);
  return SignExtend64(V, Bits);
}

uint64_t unsignedView(int64_t V, unsigned Bits) {
  if (Bits == 0 || Bits >= 64)
    return static_cast<uint64_t>(V);
  return static_cast<uint64_t>(V) & maskTrailingOnes<uint64_t>(Bits);
}

unsigned bitsOf(const Type *T) {
  T = T->getScalarType();
  if (T->isPointerTy())
    return 64;
  if (T->isIntegerTy())
    return T->getIntegerBitWidth();
  return 0;
}

// Vector values (clang's SLP vectorizer packs index arithmetic into <4 x i32> when no target machine
// guides it) are kept lane-major: element E of lane L at L * elements + E.
unsigned elementsOf(const Type *T) {
  if (const auto *V = dyn_cast<FixedVectorType>(T))
    return V->getNumElements();
  return 1;
}

int64_t dimOf(const Dim3 &D, char C) { return C == 'x' ? D.X : C == 'y' ? D.Y : D.Z; }
int64_t dimOf(const ThreadIndex &D, char C) { return C == 'x' ? D.X : C == 'y' ? D.Y : D.Z; }

// The special register an NVVM intrinsic reads: ('t' tid, 'c' ctaid, 'n' ntid, 'g' nctaid), axis.
std::optional<std::pair<char, char>> specialRegister(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::nvvm_read_ptx_sreg_tid_x: return std::make_pair('t', 'x');
  case Intrinsic::nvvm_read_ptx_sreg_tid_y: return std::make_pair('t', 'y');
  case Intrinsic::nvvm_read_ptx_sreg_tid_z: return std::make_pair('t', 'z');
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_x: return std::make_pair('c', 'x');
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_y: return std::make_pair('c', 'y');
  case Intrinsic::nvvm_read_ptx_sreg_ctaid_z: return std::make_pair('c', 'z');
  case Intrinsic::nvvm_read_ptx_sreg_ntid_x: return std::make_pair('n', 'x');
  case Intrinsic::nvvm_read_ptx_sreg_ntid_y: return std::make_pair('n', 'y');
  case Intrinsic::nvvm_read_ptx_sreg_ntid_z: return std::make_pair('n', 'z');
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_x: return std::make_pair('g', 'x');
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_y: return std::make_pair('g', 'y');
  case Intrinsic::nvvm_read_ptx_sreg_nctaid_z: return std::make_pair('g', 'z');
  default: return std::nullopt;
  }
}

// Binomial coefficient C(K, I) for small I (recurrences of degree > 1 are rare).
int64_t binomial(int64_t K, unsigned I) {
  int64_t R = 1;
  for (unsigned J = 0; J < I; ++J)
    R = R * (K - J) / int64_t(J + 1);
  return R;
}

} // namespace

LaneEvaluator::LaneEvaluator(Function &F, ScalarEvolution *SE, LoopInfo *LI, LaunchFacts Facts)
    : F(F), SE(SE), LI(LI), Facts(std::move(Facts)) {}

void LaneEvaluator::setSample(const WarpSample &S) {
  Sample = S;
  Memo.clear();
  InProgress.clear();
}

void LaneEvaluator::overrideValue(const Value *V, int64_t Value) {
  Overrides[V] = Value;
  Memo.clear();
}

void LaneEvaluator::clearOverrides() {
  if (Overrides.empty())
    return;
  Overrides.clear();
  Memo.clear();
}

LaneValues LaneEvaluator::splat(int64_t V) const { return LaneValues(Sample.Lanes.size(), V); }

int64_t LaneEvaluator::baseAddressOf(const Value *V) {
  auto It = Bases.find(V);
  if (It != Bases.end())
    return It->second;
  int64_t B = FirstBase + BaseSpacing * int64_t(Bases.size());
  Bases[V] = B;
  return B;
}

namespace {
/// \p S as ScalarEvolution prints it, without the '%' of value names, so that it reads like the
/// source: (4 * threadIdx.x), {0,+,1}<%for.body> stays as it is.
std::string readableSCEV(const SCEV *S) {
  std::string Raw, Out;
  raw_string_ostream OS(Raw);
  OS << *S;
  for (size_t I = 0; I < Raw.size(); ++I) {
    bool LoopName = I > 0 && Raw[I - 1] == '<';
    if (Raw[I] == '%' && !LoopName && I + 1 < Raw.size() &&
        (std::isalnum(static_cast<unsigned char>(Raw[I + 1])) || Raw[I + 1] == '_'))
      continue;
    Out += Raw[I];
  }
  return Out;
}
} // namespace

const std::string &LaneEvaluator::printed(const SCEV *S) {
  auto [It, Inserted] = Printed.try_emplace(S);
  if (Inserted)
    It->second = readableSCEV(S);
  return It->second;
}

LaneValues LaneEvaluator::evaluate(const Value *V) { return evalValue(V); }
LaneValues LaneEvaluator::evaluate(const SCEV *S) { return evalSCEVNode(S); }

LaneValues LaneEvaluator::evalValue(const Value *V) {
  auto It = Memo.find(V);
  if (It != Memo.end())
    return It->second;
  if (auto O = Overrides.find(V); O != Overrides.end())
    return splat(canon(O->second, bitsOf(V->getType())));
  LaneValues R;
  unsigned Bits = bitsOf(V->getType());
  if (const auto *CI = dyn_cast<ConstantInt>(V)) {
    if (CI->getBitWidth() > 64) {
      Flags |= LaneUnsupported;
      R = splat(0);
    } else {
      R = splat(canon(CI->getZExtValue(), CI->getBitWidth()));
    }
  } else if (isa<ConstantPointerNull>(V) || isa<UndefValue>(V) || isa<ConstantAggregateZero>(V)) {
    R = LaneValues(Sample.Lanes.size() * elementsOf(V->getType()), 0);
  } else if (isa<ConstantDataVector>(V) || isa<ConstantVector>(V)) {
    const auto *C = cast<Constant>(V);
    unsigned E = elementsOf(V->getType());
    R = LaneValues(Sample.Lanes.size() * E, 0);
    for (unsigned I = 0; I < E; ++I) {
      const auto *CI = dyn_cast_or_null<ConstantInt>(C->getAggregateElement(I));
      if (!CI && !isa_and_nonnull<UndefValue>(C->getAggregateElement(I)))
        Flags |= LaneUnsupported;
      for (size_t L = 0; L < Sample.Lanes.size(); ++L)
        R[L * E + I] = CI ? canon(CI->getZExtValue(), Bits) : 0;
    }
  } else if (isa<GlobalValue>(V)) {
    R = splat(baseAddressOf(V));
  } else if (const auto *A = dyn_cast<Argument>(V)) {
    if (A->getType()->isPointerTy()) {
      R = splat(baseAddressOf(V));
    } else if (A->getType()->isIntegerTy()) {
      std::string Name = A->getArgNo() < Facts.ParamNames.size() ? Facts.ParamNames[A->getArgNo()]
                                                                 : A->getName().str();
      auto Known = Facts.KnownIntParams.find(Name);
      if (Known != Facts.KnownIntParams.end()) {
        R = splat(canon(Known->second, Bits));
      } else {
        Flags |= LaneUnknownParam;
        UnknownParams.insert(Name);
        R = splat(canon(Sample.UnknownParamValue, Bits));
      }
    } else {
      Flags |= LaneUnsupported;
      R = splat(0);
    }
  } else if (const auto *I = dyn_cast<Instruction>(V)) {
    // The kernel's work budget (WorkBudget.h) and the depth of the evaluation (a chain of
    // thousands of dependent instructions would overflow the stack) bound it: beyond either the
    // value is unknown.
    if (Depth >= MaxEvaluationDepth || !spendWork()) {
      Flags |= LaneUnsupported;
      return LaneValues(Sample.Lanes.size() * elementsOf(V->getType()), 0);
    }
    if (!InProgress.insert(V).second) {
      // A cycle that ScalarEvolution did not describe.
      Flags |= LaneUnsupported;
      return splat(0);
    }
    ++Depth;
    R = evalInstruction(I);
    --Depth;
    InProgress.erase(V);
  } else if (const auto *CE = dyn_cast<ConstantExpr>(V)) {
    // Constant expressions: casts and GEPs of globals.
    if (const auto *GEP = dyn_cast<GEPOperator>(CE)) {
      const DataLayout &DL = F.getParent()->getDataLayout();
      unsigned IdxBits = DL.getIndexTypeSizeInBits(GEP->getType());
      APInt Const(IdxBits, 0);
      SmallMapVector<Value *, APInt, 4> Vars;
      R = evalValue(GEP->getPointerOperand());
      if (GEP->collectOffset(DL, IdxBits, Vars, Const) && Vars.empty())
        for (auto &X : R)
          X += Const.getSExtValue();
      else
        Flags |= LaneUnsupported;
    } else if (CE->isCast()) {
      R = evalValue(CE->getOperand(0));
    } else {
      Flags |= LaneUnsupported;
      R = splat(0);
    }
  } else {
    Flags |= LaneUnsupported;
    R = splat(0);
  }
  Memo[V] = R;
  return R;
}

LaneValues LaneEvaluator::evalInstruction(const Instruction *I) {
  unsigned Bits = bitsOf(I->getType());
  size_t N = Sample.Lanes.size();
  LaneValues R(N * elementsOf(I->getType()), 0);

  if (const auto *II = dyn_cast<IntrinsicInst>(I)) {
    if (auto Reg = specialRegister(II->getIntrinsicID())) {
      auto [Kind, Axis] = *Reg;
      for (size_t L = 0; L < N; ++L) {
        switch (Kind) {
        case 't': R[L] = dimOf(Sample.Lanes[L], Axis); break;
        case 'c': R[L] = dimOf(Sample.BlockIdx, Axis); break;
        case 'n': R[L] = dimOf(Facts.Block, Axis); break;
        default: R[L] = dimOf(Facts.Grid ? *Facts.Grid : RepresentativeGrid, Axis); break;
        }
      }
      if (Kind == 't')
        Flags |= LaneUsesThreadIdx;
      if (Kind == 'g' && !Facts.Grid)
        Flags |= LaneUnknownGrid;
      return R;
    }
    switch (II->getIntrinsicID()) {
    case Intrinsic::nvvm_read_ptx_sreg_laneid:
      Flags |= LaneUsesThreadIdx;
      for (size_t L = 0; L < N; ++L) {
        const ThreadIndex &T = Sample.Lanes[L];
        R[L] = (T.X + T.Y * Facts.Block.X + T.Z * Facts.Block.X * Facts.Block.Y) % WarpSize;
      }
      return R;
    case Intrinsic::nvvm_read_ptx_sreg_warpsize:
      return splat(WarpSize);
    case Intrinsic::smin:
    case Intrinsic::smax:
    case Intrinsic::umin:
    case Intrinsic::umax: {
      LaneValues A = evalValue(II->getArgOperand(0)), B = evalValue(II->getArgOperand(1));
      for (size_t L = 0; L < R.size(); ++L) {
        uint64_t UA = unsignedView(A[L], Bits), UB = unsignedView(B[L], Bits);
        switch (II->getIntrinsicID()) {
        case Intrinsic::smin: R[L] = std::min(A[L], B[L]); break;
        case Intrinsic::smax: R[L] = std::max(A[L], B[L]); break;
        case Intrinsic::umin: R[L] = canon(std::min(UA, UB), Bits); break;
        default: R[L] = canon(std::max(UA, UB), Bits); break;
        }
      }
      return R;
    }
    case Intrinsic::vector_reduce_add:
    case Intrinsic::vector_reduce_mul:
    case Intrinsic::vector_reduce_and:
    case Intrinsic::vector_reduce_or:
    case Intrinsic::vector_reduce_xor: {
      const Value *Vec = II->getArgOperand(0);
      size_t E = elementsOf(Vec->getType());
      LaneValues A = evalValue(Vec);
      for (size_t L = 0; L < N; ++L) {
        uint64_t Acc = unsignedView(A[L * E], Bits);
        for (size_t J = 1; J < E; ++J) {
          uint64_t X = unsignedView(A[L * E + J], Bits);
          switch (II->getIntrinsicID()) {
          case Intrinsic::vector_reduce_add: Acc += X; break;
          case Intrinsic::vector_reduce_mul: Acc *= X; break;
          case Intrinsic::vector_reduce_and: Acc &= X; break;
          case Intrinsic::vector_reduce_or: Acc |= X; break;
          default: Acc ^= X; break;
          }
        }
        R[L] = canon(Acc, Bits);
      }
      return R;
    }
    case Intrinsic::abs: {
      LaneValues A = evalValue(II->getArgOperand(0));
      for (size_t L = 0; L < R.size(); ++L)
        R[L] = canon(static_cast<uint64_t>(A[L] < 0 ? -A[L] : A[L]), Bits);
      return R;
    }
    default:
      break;
    }
  }

  if (const auto *BO = dyn_cast<BinaryOperator>(I)) {
    LaneValues A = evalValue(BO->getOperand(0)), B = evalValue(BO->getOperand(1));
    for (size_t L = 0; L < R.size(); ++L) {
      uint64_t UA = unsignedView(A[L], Bits), UB = unsignedView(B[L], Bits);
      int64_t SA = A[L], SB = B[L];
      uint64_t Out = 0;
      switch (BO->getOpcode()) {
      case Instruction::Add: Out = UA + UB; break;
      case Instruction::Sub: Out = UA - UB; break;
      case Instruction::Mul: Out = UA * UB; break;
      case Instruction::Shl: Out = UB >= Bits ? 0 : UA << UB; break;
      case Instruction::LShr: Out = UB >= Bits ? 0 : UA >> UB; break;
      case Instruction::AShr: Out = static_cast<uint64_t>(UB >= Bits ? (SA < 0 ? -1 : 0) : SA >> UB); break;
      case Instruction::And: Out = UA & UB; break;
      case Instruction::Or: Out = UA | UB; break;
      case Instruction::Xor: Out = UA ^ UB; break;
      case Instruction::UDiv:
      case Instruction::URem:
      case Instruction::SDiv:
      case Instruction::SRem:
        if (UB == 0) {
          Flags |= LaneUnsupported;
          Out = 0;
        } else if (BO->getOpcode() == Instruction::UDiv) {
          Out = UA / UB;
        } else if (BO->getOpcode() == Instruction::URem) {
          Out = UA % UB;
        } else if (SB == -1) {
          // INT64_MIN / -1 traps on x86; the IR's result wraps (sdiv) or is 0 (srem).
          Out = BO->getOpcode() == Instruction::SDiv ? 0 - UA : 0;
        } else if (BO->getOpcode() == Instruction::SDiv) {
          Out = static_cast<uint64_t>(SA / SB);
        } else {
          Out = static_cast<uint64_t>(SA % SB);
        }
        break;
      default:
        Flags |= LaneUnsupported;
        break;
      }
      R[L] = canon(Out, Bits);
    }
    return R;
  }

  if (const auto *C = dyn_cast<CastInst>(I)) {
    const Value *Src = C->getOperand(0);
    unsigned SrcBits = bitsOf(Src->getType());
    switch (C->getOpcode()) {
    case Instruction::ZExt: {
      LaneValues A = evalValue(Src);
      for (size_t L = 0; L < R.size(); ++L)
        R[L] = canon(unsignedView(A[L], SrcBits), Bits);
      return R;
    }
    case Instruction::SExt:
    case Instruction::PtrToInt:
    case Instruction::IntToPtr:
    case Instruction::BitCast:
    case Instruction::AddrSpaceCast:
    case Instruction::Trunc: {
      if (!SrcBits) {
        Flags |= LaneUnsupported;
        return R;
      }
      LaneValues A = evalValue(Src);
      if (A.size() != R.size()) { // a bitcast between vector shapes
        Flags |= LaneUnsupported;
        return R;
      }
      for (size_t L = 0; L < R.size(); ++L)
        R[L] = canon(static_cast<uint64_t>(A[L]), Bits);
      return R;
    }
    default:
      Flags |= LaneUnsupported; // floating-point conversions
      return R;
    }
  }

  if (const auto *GEP = dyn_cast<GetElementPtrInst>(I)) {
    const DataLayout &DL = F.getParent()->getDataLayout();
    unsigned IdxBits = DL.getIndexTypeSizeInBits(GEP->getType());
    APInt Const(IdxBits, 0);
    SmallMapVector<Value *, APInt, 4> Vars;
    R = evalValue(GEP->getPointerOperand());
    if (!GEP->collectOffset(DL, IdxBits, Vars, Const)) {
      Flags |= LaneUnsupported;
      return R;
    }
    for (size_t L = 0; L < N; ++L)
      R[L] += Const.getSExtValue();
    for (auto &[Idx, Scale] : Vars) {
      LaneValues X = evalValue(Idx);
      unsigned XBits = bitsOf(Idx->getType());
      for (size_t L = 0; L < N; ++L) {
        // GEP indices are sign-extended (or truncated) to the index width.
        int64_t Index = XBits > IdxBits ? canon(static_cast<uint64_t>(X[L]), IdxBits) : X[L];
        R[L] += Index * Scale.getSExtValue();
      }
    }
    return R;
  }

  if (const auto *Cmp = dyn_cast<ICmpInst>(I)) {
    LaneValues A = evalValue(Cmp->getOperand(0)), B = evalValue(Cmp->getOperand(1));
    unsigned OpBits = bitsOf(Cmp->getOperand(0)->getType());
    for (size_t L = 0; L < R.size(); ++L) {
      APInt AA(64, unsignedView(A[L], OpBits)), BB(64, unsignedView(B[L], OpBits));
      if (OpBits && OpBits < 64) {
        AA = AA.trunc(OpBits);
        BB = BB.trunc(OpBits);
      }
      R[L] = ICmpInst::compare(AA, BB, Cmp->getPredicate()) ? -1 : 0;
    }
    return R;
  }

  if (const auto *Sel = dyn_cast<SelectInst>(I)) {
    LaneValues C = evalValue(Sel->getCondition());
    LaneValues T = evalValue(Sel->getTrueValue()), Fv = evalValue(Sel->getFalseValue());
    size_t E = elementsOf(I->getType());
    bool VectorCond = C.size() == R.size();
    for (size_t L = 0; L < R.size(); ++L)
      R[L] = (VectorCond ? C[L] : C[L / E]) ? T[L] : Fv[L];
    return R;
  }

  if (const auto *IE = dyn_cast<InsertElementInst>(I)) {
    const auto *Idx = dyn_cast<ConstantInt>(IE->getOperand(2));
    if (!Idx) {
      Flags |= LaneUnsupported;
      return R;
    }
    size_t E = elementsOf(I->getType());
    R = evalValue(IE->getOperand(0));
    LaneValues X = evalValue(IE->getOperand(1));
    for (size_t L = 0; L < N; ++L)
      R[L * E + Idx->getZExtValue()] = X[L];
    return R;
  }

  if (const auto *EE = dyn_cast<ExtractElementInst>(I)) {
    const auto *Idx = dyn_cast<ConstantInt>(EE->getIndexOperand());
    if (!Idx) {
      Flags |= LaneUnsupported;
      return R;
    }
    size_t E = elementsOf(EE->getVectorOperandType());
    LaneValues X = evalValue(EE->getVectorOperand());
    for (size_t L = 0; L < N; ++L)
      R[L] = X[L * E + Idx->getZExtValue()];
    return R;
  }

  if (const auto *SV = dyn_cast<ShuffleVectorInst>(I)) {
    size_t E = elementsOf(I->getType());
    size_t InE = elementsOf(SV->getOperand(0)->getType());
    LaneValues A = evalValue(SV->getOperand(0)), B = evalValue(SV->getOperand(1));
    for (size_t L = 0; L < N; ++L)
      for (size_t J = 0; J < E; ++J) {
        int M = SV->getMaskValue(J);
        R[L * E + J] = M < 0 ? 0 : size_t(M) < InE ? A[L * InE + M] : B[L * InE + (M - InE)];
      }
    return R;
  }

  if (isa<PHINode>(I))
    return evalPhi(I);

  if (const auto *Fr = dyn_cast<FreezeInst>(I))
    return evalValue(Fr->getOperand(0));

  if (const auto *Ld = dyn_cast<LoadInst>(I)) {
    // A load from a by-value struct parameter reads a kernel argument: uniform, not data.
    const Value *Base = getUnderlyingObject(Ld->getPointerOperand());
    if (const auto *A = dyn_cast<Argument>(Base); A && A->hasByValAttr()) {
      if (Ld->getType()->isPointerTy())
        return splat(baseAddressOf(I));
      Flags |= LaneUnknownParam;
      UnknownParams.insert((A->getArgNo() < Facts.ParamNames.size() ? Facts.ParamNames[A->getArgNo()]
                                                                     : std::string("struct")) +
                           " (field)");
      return splat(canon(Sample.UnknownParamValue, Bits));
    }
    Flags |= LaneDataDependent;
    return splat(Ld->getType()->isPointerTy() ? baseAddressOf(I) : 0);
  }

  // __mul24 / __umul24 (libdevice, not linked): the low 32 bits of the product of the operands'
  // low 24 bits, sign- or zero-extended.
  if (const auto *CB = dyn_cast<CallBase>(I); CB && CB->getCalledFunction() && CB->arg_size() == 2) {
    StringRef Name = CB->getCalledFunction()->getName();
    if (Name == "__nv_mul24" || Name == "__nv_umul24") {
      bool Signed = Name == "__nv_mul24";
      LaneValues A = evalValue(CB->getArgOperand(0)), B = evalValue(CB->getArgOperand(1));
      for (size_t L = 0; L < R.size(); ++L) {
        uint64_t UA = unsignedView(A[L], 24), UB = unsignedView(B[L], 24);
        int64_t XA = Signed ? SignExtend64(UA, 24) : int64_t(UA);
        int64_t XB = Signed ? SignExtend64(UB, 24) : int64_t(UB);
        R[L] = canon(static_cast<uint64_t>(XA * XB), Bits);
      }
      return R;
    }
  }

  if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I) || isa<CallBase>(I)) {
    const auto *CB = dyn_cast<CallBase>(I);
    bool IsLoadIntrinsic = false;
    if (const auto *II = dyn_cast_or_null<IntrinsicInst>(CB))
      IsLoadIntrinsic = II->getIntrinsicID() == Intrinsic::nvvm_ldu_global_i ||
                        II->getIntrinsicID() == Intrinsic::nvvm_ldu_global_p;
    Flags |= (CB && !IsLoadIntrinsic) ? LaneUnsupported : LaneDataDependent;
    return splat(I->getType()->isPointerTy() ? baseAddressOf(I) : 0);
  }

  Flags |= LaneUnsupported;
  return R;
}

LaneValues LaneEvaluator::evalPhi(const Instruction *I) {
  const auto *Phi = cast<PHINode>(I);
  const BasicBlock *BB = Phi->getParent();
  Loop *L = LI ? LI->getLoopFor(BB) : nullptr;
  if (L && L->getHeader() == BB) {
    if (SE && SE->isSCEVable(Phi->getType())) {
      const SCEV *S = SE->getSCEV(const_cast<PHINode *>(Phi));
      if (isa<SCEVAddRecExpr>(S))
        return evalSCEVNode(S);
    }
    // Not a recurrence ScalarEvolution describes: the value on entry (iteration 0).
    Flags |= LaneNonAffineRecurrence;
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K)
      if (!L->contains(Phi->getIncomingBlock(K)))
        return evalValue(Phi->getIncomingValue(K));
    Flags |= LaneUnsupported;
    return splat(0);
  }
  // A merge of paths: exact when every incoming value agrees; when they differ but each is uniform
  // across the warp, the lane pattern is the same on every path (the first one is used).
  std::optional<LaneValues> First;
  bool Same = true, AllUniform = true;
  for (const Value *In : Phi->incoming_values()) {
    LaneValues V = evalValue(In);
    bool Uniform = std::all_of(V.begin(), V.end(), [&](int64_t X) { return X == V.front(); });
    AllUniform &= Uniform;
    if (!First)
      First = V;
    else if (V != *First)
      Same = false;
  }
  if (!First)
    return splat(0);
  if (!Same && !AllUniform)
    Flags |= LaneControlDependent;
  return *First;
}

LaneValues LaneEvaluator::evalSCEVNode(const SCEV *S) {
  if (Depth >= MaxEvaluationDepth) {
    Flags |= LaneUnsupported;
    return splat(0);
  }
  struct DepthGuard {
    unsigned &D;
    ~DepthGuard() { --D; }
  } Guard{++Depth};
  size_t N = Sample.Lanes.size();
  unsigned Bits = SE ? static_cast<unsigned>(SE->getTypeSizeInBits(S->getType())) : 64;
  LaneValues R(N, 0);
  if (const auto *C = dyn_cast<SCEVConstant>(S)) {
    if (C->getAPInt().getBitWidth() > 64) {
      Flags |= LaneUnsupported;
      return R;
    }
    return splat(canon(C->getAPInt().getZExtValue(), Bits));
  }
  if (const auto *U = dyn_cast<SCEVUnknown>(S))
    return evalValue(U->getValue());
  if (const auto *Cast = dyn_cast<SCEVCastExpr>(S)) {
    const SCEV *Op = Cast->getOperand(0);
    unsigned OpBits = static_cast<unsigned>(SE->getTypeSizeInBits(Op->getType()));
    LaneValues A = evalSCEVNode(Op);
    for (size_t L = 0; L < N; ++L)
      R[L] = isa<SCEVZeroExtendExpr>(S) ? canon(unsignedView(A[L], OpBits), Bits)
                                        : canon(static_cast<uint64_t>(A[L]), Bits);
    return R;
  }
  if (const auto *Add = dyn_cast<SCEVAddExpr>(S)) {
    for (const SCEV *Op : Add->operands()) {
      LaneValues A = evalSCEVNode(Op);
      for (size_t L = 0; L < N; ++L)
        R[L] = canon(static_cast<uint64_t>(R[L]) + static_cast<uint64_t>(A[L]), Bits);
    }
    return R;
  }
  if (const auto *Mul = dyn_cast<SCEVMulExpr>(S)) {
    R = splat(1);
    for (const SCEV *Op : Mul->operands()) {
      LaneValues A = evalSCEVNode(Op);
      for (size_t L = 0; L < N; ++L)
        R[L] = canon(static_cast<uint64_t>(R[L]) * static_cast<uint64_t>(A[L]), Bits);
    }
    return R;
  }
  if (const auto *Div = dyn_cast<SCEVUDivExpr>(S)) {
    LaneValues A = evalSCEVNode(Div->getLHS()), B = evalSCEVNode(Div->getRHS());
    for (size_t L = 0; L < N; ++L) {
      uint64_t UB = unsignedView(B[L], Bits);
      if (UB == 0) {
        Flags |= LaneUnsupported;
        continue;
      }
      R[L] = canon(unsignedView(A[L], Bits) / UB, Bits);
    }
    return R;
  }
  if (const auto *AR = dyn_cast<SCEVAddRecExpr>(S)) {
    Flags |= LaneUsesLoopIteration;
    int64_t K = Sample.Iteration;
    for (unsigned I = 0; I < AR->getNumOperands(); ++I) {
      LaneValues A = evalSCEVNode(AR->getOperand(I));
      int64_t Coef = binomial(K, I);
      for (size_t L = 0; L < N; ++L)
        R[L] = canon(static_cast<uint64_t>(R[L]) + static_cast<uint64_t>(A[L]) * Coef, Bits);
    }
    return R;
  }
  if (const auto *MM = dyn_cast<SCEVNAryExpr>(S)) {
    bool Signed = isa<SCEVSMaxExpr>(S) || isa<SCEVSMinExpr>(S);
    bool IsMax = isa<SCEVSMaxExpr>(S) || isa<SCEVUMaxExpr>(S);
    if (!isa<SCEVMinMaxExpr>(S) && !isa<SCEVSequentialMinMaxExpr>(S)) {
      Flags |= LaneUnsupported;
      return R;
    }
    bool FirstOp = true;
    for (const SCEV *Op : MM->operands()) {
      LaneValues A = evalSCEVNode(Op);
      for (size_t L = 0; L < N; ++L) {
        if (FirstOp) {
          R[L] = A[L];
          continue;
        }
        bool Less = Signed ? A[L] < R[L] : unsignedView(A[L], Bits) < unsignedView(R[L], Bits);
        if (Less != IsMax)
          R[L] = A[L];
      }
      FirstOp = false;
    }
    return R;
  }
  Flags |= LaneUnsupported;
  return R;
}

std::optional<int64_t> executionsPerThread(LaneEvaluator &E, ScalarEvolution &SE, LoopInfo &LI,
                                           const BasicBlock *BB, std::string *Expr) {
  std::optional<int64_t> Exec = 1;
  for (Loop *L = LI.getLoopFor(BB); L; L = L->getParentLoop()) {
    std::string Sym;
    std::optional<int64_t> Trip = evaluateTripCount(E, SE, L, Sym);
    if (Trip && Exec)
      *Exec *= *Trip;
    else
      Exec.reset();
    if (Expr)
      *Expr += (Expr->empty() ? "" : " * ") + (Sym.empty() ? std::string("?") : "(" + Sym + ")");
  }
  return Exec;
}

LaunchFacts launchFactsFor(const KernelReport &K, const Function &F) {
  LaunchFacts Facts;
  Facts.Block = K.Launch.Block;
  Facts.Grid = K.Launch.Grid;
  for (const auto &[Name, V] : K.Launch.Params)
    if (const auto *I = std::get_if<int64_t>(&V))
      Facts.KnownIntParams[Name] = *I;
  if (F.arg_size() == K.Params.size())
    for (const KernelParam &P : K.Params)
      Facts.ParamNames.push_back(P.Name);
  return Facts;
}

std::vector<WarpSample> representativeWarps(const LaunchFacts &Facts, bool InLoop,
                                            int64_t UnknownParamValue) {
  auto Warps = warpsOfBlock(Facts.Block);
  std::vector<size_t> Chosen;
  if (Warps.size() <= 8) {
    for (size_t W = 0; W < Warps.size(); ++W)
      Chosen.push_back(W);
  } else {
    for (size_t I = 0; I < 8; ++I)
      Chosen.push_back(I * (Warps.size() - 1) / 7);
  }
  std::vector<ThreadIndex> Blocks = {{0, 0, 0}, {1, 1, 1}, {2, 3, 2}, {5, 2, 3}};
  // Wrapped into a known grid; a grid that cannot launch (a dimension below 1) wraps nothing.
  if (Facts.Grid)
    for (ThreadIndex &B : Blocks) {
      B.X %= std::max<int64_t>(1, Facts.Grid->X);
      B.Y %= std::max<int64_t>(1, Facts.Grid->Y);
      B.Z %= std::max<int64_t>(1, Facts.Grid->Z);
    }
  std::vector<int64_t> Iterations = InLoop ? std::vector<int64_t>{0, 1, 2} : std::vector<int64_t>{0};
  std::vector<WarpSample> Out;
  for (const ThreadIndex &B : Blocks)
    for (int64_t K : Iterations)
      for (size_t W : Chosen) {
        WarpSample S;
        S.BlockIdx = B;
        S.Lanes = Warps[W];
        S.Iteration = K;
        S.UnknownParamValue = UnknownParamValue;
        Out.push_back(std::move(S));
      }
  return Out;
}

LaneAddressSummary summarizeLaneAddresses(LaneEvaluator &E, const Value *Ptr, bool InLoop,
                                          int64_t UnknownParamValue, int64_t ByteOffset) {
  LaneAddressSummary Sum;
  E.resetFlags();
  for (WarpSample &S : representativeWarps(E.facts(), InLoop, UnknownParamValue)) {
    E.setSample(S);
    LaneValues V = E.evaluate(Ptr);
    SampledWarp W;
    W.Sample = std::move(S);
    W.Addresses.assign(V.begin(), V.end());
    for (int64_t &A : W.Addresses)
      A += ByteOffset;
    Sum.Warps.push_back(std::move(W));
  }
  // Coefficients by differences at thread (0,0,0) of block 0, iteration 0, checked on every lane.
  WarpSample Probe;
  Probe.Lanes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  Probe.UnknownParamValue = UnknownParamValue;
  E.setSample(Probe);
  LaneValues P = E.evaluate(Ptr);
  int64_t CX = P[1] - P[0], CY = P[2] - P[0], CZ = P[3] - P[0];
  Sum.Affine = true;
  for (const SampledWarp &W : Sum.Warps) {
    if (W.Addresses.empty())
      continue;
    const ThreadIndex &T0 = W.Sample.Lanes.front();
    for (size_t L = 0; L < W.Addresses.size(); ++L) {
      const ThreadIndex &T = W.Sample.Lanes[L];
      if (W.Addresses[L] - W.Addresses[0] != CX * (T.X - T0.X) + CY * (T.Y - T0.Y) + CZ * (T.Z - T0.Z))
        Sum.Affine = false;
    }
  }
  if (Sum.Affine) {
    Sum.CoefX = CX;
    Sum.CoefY = CY;
    Sum.CoefZ = CZ;
  }
  Sum.Flags = E.flags();
  Sum.UnknownParams = E.unknownParams();
  return Sum;
}

// Loops whose step is not a constant (grid-stride loops step by blockDim.x * gridDim.x) have no
// backedge-taken count in ScalarEvolution. When the latch compares an affine recurrence with a
// loop-invariant bound, count the iterations for lane 0 of block 0 in closed form.
// A loop ScalarEvolution cannot count, whose latch continues while an affine counter {X0,+,S}
// compares with a loop-invariant bound (grid- and block-stride loops, whose step is not a
// constant): per lane 1 + ceil((B - X0) / S) trips while X0 is below B (above it for a
// decreasing counter), else 1. False when the latch has another form or a value is unknown.
static bool evaluateLatchTripCounts(LaneEvaluator &E, ScalarEvolution &SE, const Loop *L,
                                    const WarpSample &S, LaneValues &Trips, std::string &Symbolic) {
  ICmpInst *Cmp = L->getLatchCmpInst();
  BasicBlock *Latch = L->getLoopLatch();
  if (!Cmp || !Latch)
    return false;
  auto *Br = dyn_cast<BranchInst>(Latch->getTerminator());
  if (!Br || !Br->isConditional())
    return false;
  const SCEV *LHS = SE.getSCEV(Cmp->getOperand(0)), *RHS = SE.getSCEV(Cmp->getOperand(1));
  ICmpInst::Predicate Pred = Cmp->getPredicate();
  const auto *AR = dyn_cast<SCEVAddRecExpr>(LHS);
  if (!AR || AR->getLoop() != L) {
    AR = dyn_cast<SCEVAddRecExpr>(RHS);
    std::swap(LHS, RHS);
    Pred = ICmpInst::getSwappedPredicate(Pred);
  }
  if (!AR || AR->getLoop() != L || !AR->isAffine() || !SE.isLoopInvariant(RHS, L))
    return false;
  if (Br->getSuccessor(0) != L->getHeader())
    Pred = ICmpInst::getInversePredicate(Pred);
  bool Increasing = Pred == ICmpInst::ICMP_SLT || Pred == ICmpInst::ICMP_ULT ||
                    Pred == ICmpInst::ICMP_SLE || Pred == ICmpInst::ICMP_ULE;
  bool Decreasing = Pred == ICmpInst::ICMP_SGT || Pred == ICmpInst::ICMP_UGT ||
                    Pred == ICmpInst::ICMP_SGE || Pred == ICmpInst::ICMP_UGE;
  if (!Increasing && !Decreasing)
    return false;
  bool OrEqual = ICmpInst::isNonStrictPredicate(Pred);
  const SCEV *Start = AR->getStart(), *Step = AR->getStepRecurrence(SE);
  {
    raw_string_ostream OS(Symbolic);
    const std::string &B = E.printed(RHS), &X0 = E.printed(Start), &St = E.printed(Step);
    if (Increasing)
      OS << "1 + ceil((" << B << (OrEqual ? " + 1" : "") << " - " << X0 << ") / " << St << ")";
    else
      OS << "1 + ceil((" << X0 << " - " << B << (OrEqual ? " + 1" : "") << ") / -(" << St << "))";
  }
  E.resetFlags();
  E.setSample(S);
  LaneValues X0 = E.evaluate(Start), St = E.evaluate(Step), Bound = E.evaluate(RHS);
  if (E.flags() & (LaneUnknownParam | LaneUnknownGrid | LaneUnsupported | LaneDataDependent))
    return false;
  Trips.assign(X0.size(), -1);
  for (size_t I = 0; I < X0.size(); ++I) {
    // The loop continues while the counter has not passed the bound; count the iterations.
    int64_t Distance = Increasing ? Bound[I] - X0[I] : X0[I] - Bound[I];
    int64_t Stride = Increasing ? St[I] : -St[I];
    if (Stride <= 0)
      return false;
    Distance += OrEqual ? 1 : 0;
    Trips[I] = Distance <= 0 ? 1 : 1 + (Distance + Stride - 1) / Stride;
  }
  return true;
}

// Loops whose counter is halved, doubled or divided each iteration (`for (s = blockDim.x / 2; s > 0;
// s >>= 1)`, the tree reductions) have no ScalarEvolution trip count either. When the latch compares
// the counter (or its next value) with a loop-invariant bound and the counter's next value is the
// counter shifted, multiplied or divided by a constant, simulate it for lane 0 of block 0.
namespace {

// Simulates the counter of a loop that shifts, multiplies or divides it by a constant; \p Values
// (when given) receives the counter at each iteration, up to \p MaxIterations.
std::optional<int64_t> simulateGeometricCounter(LaneEvaluator &E, const Loop *L, std::string &Symbolic,
                                                const PHINode **CounterPhi, std::vector<int64_t> *Values,
                                                int64_t MaxIterations) {
  BasicBlock *Latch = L->getLoopLatch();
  auto *Br = Latch ? dyn_cast<BranchInst>(Latch->getTerminator()) : nullptr;
  auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
  if (!Cmp)
    return std::nullopt;
  for (PHINode &P : L->getHeader()->phis()) {
    if (!P.getType()->isIntegerTy() || P.getNumIncomingValues() != 2)
      continue;
    // The value entering the loop (its predecessor outside need not be a dedicated preheader).
    Value *Entry = nullptr;
    for (unsigned I = 0; I < 2; ++I)
      if (!L->contains(P.getIncomingBlock(I)))
        Entry = P.getIncomingValue(I);
    if (!Entry)
      continue;
    auto *Next = dyn_cast<BinaryOperator>(P.getIncomingValueForBlock(Latch));
    auto *C = Next ? dyn_cast<ConstantInt>(Next->getOperand(1)) : nullptr;
    if (!C || Next->getOperand(0) != &P)
      continue;
    Instruction::BinaryOps Op = Next->getOpcode();
    if (Op != Instruction::LShr && Op != Instruction::AShr && Op != Instruction::Shl &&
        Op != Instruction::Mul && Op != Instruction::UDiv && Op != Instruction::SDiv)
      continue;
    // Which side of the compare is the counter (or its next value), which the bound.
    unsigned CounterSide;
    if (Cmp->getOperand(0) == &P || Cmp->getOperand(0) == Next)
      CounterSide = 0;
    else if (Cmp->getOperand(1) == &P || Cmp->getOperand(1) == Next)
      CounterSide = 1;
    else
      continue;
    Value *Bound = Cmp->getOperand(1 - CounterSide);
    if (!L->isLoopInvariant(Bound))
      continue;
    bool TestsNext = Cmp->getOperand(CounterSide) == Next;
    ICmpInst::Predicate Pred = CounterSide == 0 ? Cmp->getPredicate() : Cmp->getSwappedPredicate();
    bool ContinueOnTrue = Br->getSuccessor(0) == L->getHeader();

    E.resetFlags();
    WarpSample S;
    S.Lanes = {{0, 0, 0}};
    E.setSample(S);
    int64_t Start = E.evaluate(Entry)[0];
    int64_t BoundValue = E.evaluate(Bound)[0];
    if (E.flags() & (LaneUnknownParam | LaneUnknownGrid | LaneUnsupported | LaneDataDependent |
                     LaneUsesThreadIdx))
      return std::nullopt; // unknown, or different for each thread
    unsigned Bits = P.getType()->getIntegerBitWidth();
    APInt V(Bits, static_cast<uint64_t>(Start), /*isSigned=*/true);
    APInt B(Bits, static_cast<uint64_t>(BoundValue), /*isSigned=*/true);
    APInt K = C->getValue();
    {
      raw_string_ostream OS(Symbolic);
      OS << "iterations of " << P.getName() << " = " << Next->getOpcodeName() << " by " << K
         << " while " << ICmpInst::getPredicateName(Pred) << " bound";
    }
    if (CounterPhi)
      *CounterPhi = &P;
    for (int64_t Count = 1; Count <= MaxIterations; ++Count) {
      if (Values)
        Values->push_back(V.getSExtValue());
      APInt N = V;
      switch (Op) {
      case Instruction::LShr: N = V.lshr(K); break;
      case Instruction::AShr: N = V.ashr(K); break;
      case Instruction::Shl: N = V.shl(K); break;
      case Instruction::Mul: N = V * K; break;
      case Instruction::UDiv: if (K.isZero()) return std::nullopt; N = V.udiv(K); break;
      case Instruction::SDiv: if (K.isZero()) return std::nullopt; N = V.sdiv(K); break;
      default: return std::nullopt;
      }
      bool Cond = ICmpInst::compare(TestsNext ? N : V, B, Pred);
      if (Cond != ContinueOnTrue)
        return Count;
      if (N == V) // a fixed point that keeps the loop going: not a count
        return std::nullopt;
      V = N;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace

std::optional<int64_t> evaluateGeometricTripCount(LaneEvaluator &E, ScalarEvolution &SE,
                                                  const Loop *L, std::string &Symbolic) {
  (void)SE;
  return simulateGeometricCounter(E, L, Symbolic, nullptr, nullptr, 1 << 20);
}

std::optional<GeometricCounter> geometricCounter(LaneEvaluator &E, ScalarEvolution &SE, const Loop *L,
                                                 int64_t MaxIterations) {
  (void)SE;
  GeometricCounter G;
  std::string Symbolic;
  if (!simulateGeometricCounter(E, L, Symbolic, &G.Phi, &G.Values, MaxIterations) || !G.Phi)
    return std::nullopt;
  return G;
}

LaneValues evaluateLaneTripCounts(LaneEvaluator &E, ScalarEvolution &SE, const Loop *L,
                                  const WarpSample &S, std::string &Symbolic) {
  LaneValues Trips(S.Lanes.size(), -1);
  const SCEV *BTC = SE.getBackedgeTakenCount(L);
  if (isa<SCEVCouldNotCompute>(BTC)) {
    std::string Latch;
    bool Counted = evaluateLatchTripCounts(E, SE, L, S, Trips, Latch);
    Symbolic = Latch;
    if (Counted && !llvm::is_contained(Trips, -1))
      return Trips;
    std::string Geometric;
    if (auto N = evaluateGeometricTripCount(E, SE, L, Geometric)) {
      Symbolic = Geometric;
      std::fill(Trips.begin(), Trips.end(), *N);
    }
    return Trips;
  }
  Symbolic = "1 + " + E.printed(BTC);
  E.resetFlags();
  E.setSample(S);
  LaneValues V = E.evaluate(BTC);
  if (E.flags() & (LaneUnknownParam | LaneUnknownGrid | LaneUnsupported | LaneDataDependent))
    return Trips;
  unsigned Bits = static_cast<unsigned>(SE.getTypeSizeInBits(BTC->getType()));
  for (size_t I = 0; I < V.size(); ++I) {
    uint64_t Count = unsignedView(V[I], Bits) + 1;
    // A count that wrapped (e.g. (n & ~7) - 8 for n < 8) means the guard in front skips the loop.
    Trips[I] = Count > (uint64_t(1) << 31) ? 0 : static_cast<int64_t>(Count);
  }
  return Trips;
}

std::optional<int64_t> evaluateTripCount(LaneEvaluator &E, ScalarEvolution &SE, Loop *L,
                                         std::string &Symbolic) {
  WarpSample S;
  S.Lanes = {{0, 0, 0}};
  LaneValues T = evaluateLaneTripCounts(E, SE, L, S, Symbolic);
  if (T.empty() || T[0] < 0)
    return std::nullopt;
  return T[0];
}

std::string describeAddress(ScalarEvolution &SE, const Value *Ptr) {
  const SCEV *S = SE.getSCEV(const_cast<Value *>(Ptr));
  if (S->getType()->isPointerTy())
    S = SE.removePointerBase(S);
  return readableSCEV(S);
}

void nameSpecialValues(Function &F, const std::vector<std::string> &ParamNames) {
  // clang's code generation discards value names (setName does nothing) unless told otherwise.
  F.getContext().setDiscardValueNames(false);
  for (Argument &A : F.args())
    if (!A.hasName() && A.getArgNo() < ParamNames.size() && !ParamNames[A.getArgNo()].empty())
      A.setName(ParamNames[A.getArgNo()]);
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<IntrinsicInst>(&I))
      if (auto Reg = specialRegister(II->getIntrinsicID()); Reg && !I.hasName()) {
        const char *Base = Reg->first == 't'   ? "threadIdx."
                           : Reg->first == 'c' ? "blockIdx."
                           : Reg->first == 'n' ? "blockDim."
                                               : "gridDim.";
        I.setName(std::string(Base) + Reg->second);
      }
  // Printing an unnamed value numbers every value of its function first (LLVM's slot tracker), so
  // each printed expression cost the size of the kernel; with names, printing is local.
  unsigned Next = 0;
  for (Argument &A : F.args())
    if (!A.hasName())
      A.setName("arg" + std::to_string(A.getArgNo()));
  for (Instruction &I : instructions(F))
    if (!I.hasName() && !I.getType()->isVoidTy())
      I.setName("v" + std::to_string(Next++));
}

} // namespace cudaperf
