//===- FlopCount.cpp - Floating-point work of one basic block -------------===//
#include "cudaperf/Analysis/FlopCount.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/Regex.h"
#include <algorithm>

using namespace llvm;

namespace cudaperf {

const char *precisionName(unsigned P) {
  static const char *Names[] = {"fp16", "bf16", "fp32", "fp64"};
  return P < NumPrecisions ? Names[P] : "?";
}

const char *tensorTypeName(unsigned T) {
  static const char *Names[] = {"fp16", "bf16", "tf32", "fp64", "int8"};
  return T < NumTensorTypes ? Names[T] : "?";
}

double OpCounts::flops() const {
  double F = 0;
  for (unsigned P = 0; P < NumPrecisions; ++P)
    F += flops(P);
  return F;
}

bool OpCounts::empty() const {
  if (flops() != 0 || IntOps != 0 || !SpecialByName.empty())
    return false;
  return std::all_of(TensorFlopsPerWarp.begin(), TensorFlopsPerWarp.end(),
                     [](double V) { return V == 0; });
}

void OpCounts::addScaled(const OpCounts &O, double S) {
  for (unsigned P = 0; P < NumPrecisions; ++P) {
    Add[P] += S * O.Add[P];
    Mul[P] += S * O.Mul[P];
    Fma[P] += S * O.Fma[P];
    LibraryFlops[P] += S * O.LibraryFlops[P];
    SassAdd[P] += S * O.SassAdd[P];
    SassMul[P] += S * O.SassMul[P];
    SassFma[P] += S * O.SassFma[P];
    Div[P] += S * O.Div[P];
    Sqrt[P] += S * O.Sqrt[P];
    Special[P] += S * O.Special[P];
  }
  for (unsigned T = 0; T < NumTensorTypes; ++T)
    TensorFlopsPerWarp[T] += S * O.TensorFlopsPerWarp[T];
  for (const auto &[Name, N] : O.SpecialByName)
    SpecialByName[Name] += S * N;
  IntOps += S * O.IntOps;
  UnknownSpecials += O.UnknownSpecials;
}

// Fast-path FP instructions of each library sequence. Rows marked "ptx" were read from
// `nvcc -O3 -arch=sm_90 -ptx` (CUDA 13.0) of a kernel calling the function on a loaded value:
// libdevice inlined, ptxas maps fma.rn/mul/add one to one onto FFMA/FMUL/FADD. Rows marked
// "sass" are instructions that ptxas itself expands (div.rn, rcp.rn, sqrt.rn, rsqrt.approx.f64):
// the CPU machine has no disassembler, so these are the expansions NVIDIA's compiler is known to
// emit for sm_90, checked in aggregate against the measured corpus (docs/accuracy.md).
// MUFU instructions (ex2, lg2, rsq, rcp, sin, cos) are not FP32 pipe instructions and count 0.
const LibraryCost LibraryTable[] = {
    {"__nv_expf", FP32, 1, 1, 4, "special", "ptx: 4 fma (one .rm), 1 add, 1 mul, ex2.approx"},
    {"__nv_fast_expf", FP32, 0, 1, 0, "special", "ptx: mul by log2(e), ex2.approx"},
    {"__nv_exp2f", FP32, 0, 0, 0, "special", "ptx: ex2.approx only"},
    {"__nv_exp10f", FP32, 0, 1, 4, "special", "ptx: same shape as __nv_expf"},
    {"__nv_logf", FP32, 1, 2, 11, "special", "ptx: 11 fma, 2 mul, 1 add on the normal-input path"},
    {"__nv_log2f", FP32, 0, 0, 0, "special", "ptx: lg2.approx only"},
    {"__nv_fast_logf", FP32, 0, 1, 0, "special", "ptx: lg2.approx, mul"},
    {"__nv_sinf", FP32, 0, 2, 8, "special",
     "ptx: |x| < 105615 path: 2 mul, 3 fma reduction, 4-6 fma polynomial by quadrant (5 taken)"},
    {"__nv_cosf", FP32, 0, 2, 8, "special", "ptx: as __nv_sinf"},
    {"__nv_fast_sinf", FP32, 0, 0, 0, "special", "ptx: sin.approx only"},
    {"__nv_fast_cosf", FP32, 0, 0, 0, "special", "ptx: cos.approx only"},
    {"__nv_tanhf", FP32, 1, 2, 6, "special", "ptx: 6 fma, 2 mul, 1 add (both ranges share them)"},
    {"__nv_rsqrtf", FP32, 0, 0, 0, "special", "ptx: rsqrt.approx.f32 (MUFU.RSQ)"},
    {"__nv_frcp_rn", FP32, 1, 0, 2, "div", "sass: as rcp.f32"},
    {"__nv_fdividef", FP32, 0, 1, 0, "div", "ptx: div.approx.f32 = MUFU.RCP + FMUL"},
    {"__nv_sqrtf", FP32, 0, 2, 2, "sqrt", "sass: sqrt.rn.f32 = MUFU.RSQ, 2 FMUL, 2 FFMA"},
    {"__nv_fsqrt_rn", FP32, 0, 2, 2, "sqrt", "sass: as __nv_sqrtf"},
    {"fdiv.f32", FP32, 0, 0, 5, "div", "sass: div.rn.f32 = MUFU.RCP, 5 FFMA, FCHK"},
    {"rcp.f32", FP32, 1, 0, 2, "div", "sass: rcp.rn.f32 (1/x) = MUFU.RCP, 2 FFMA, 1 FADD"},
    {"sqrt.f32", FP32, 0, 2, 2, "sqrt", "sass: as __nv_sqrtf"},
    {"__nv_exp", FP64, 1, 0, 14, "special", "ptx: 14 fma, 1 add on |x| < 708"},
    {"__nv_sqrt", FP64, 0, 3, 5, "sqrt", "sass: sqrt.rn.f64 = MUFU.RSQ64H, 3 DMUL, 5 DFMA"},
    {"sqrt.f64", FP64, 0, 3, 5, "sqrt", "sass: as __nv_sqrt"},
    {"__nv_rsqrt", FP64, 0, 2, 3, "special", "sass: rsqrt.approx.f64 = MUFU.RSQ64H, 2 DMUL, 3 DFMA"},
    {"fdiv.f64", FP64, 0, 1, 6, "div", "sass: div.rn.f64 = MUFU.RCP64H, 6 DFMA, 1 DMUL"},
    {"rcp.f64", FP64, 0, 0, 5, "div", "sass: rcp.rn.f64 = MUFU.RCP64H, 5 DFMA"},
};

const LibraryCost *libraryCost(StringRef Name) {
  for (const LibraryCost &C : LibraryTable)
    if (Name == C.Name)
      return &C;
  return nullptr;
}

namespace {

std::optional<unsigned> precisionOf(Type *T) {
  T = T->getScalarType();
  if (T->isHalfTy())
    return FP16;
  if (T->isBFloatTy())
    return BF16;
  if (T->isFloatTy())
    return FP32;
  if (T->isDoubleTy())
    return FP64;
  return std::nullopt;
}

unsigned elementsOf(Type *T) {
  if (auto *VT = dyn_cast<FixedVectorType>(T))
    return VT->getNumElements();
  return 1;
}

// SASS instructions for an IR operation on \p Elements values: fp16/bf16 are packed two per
// instruction (HADD2/HFMA2), others one per element.
double sassInstructions(unsigned P, unsigned Elements) {
  return (P == FP16 || P == BF16) ? (Elements + 1) / 2 : Elements;
}

// libdevice functions that are one arithmetic instruction: 'f' fma, 'a' add/sub, 'm' multiply,
// 0 otherwise. fmaf/fma and the directed-rounding forms (__fmaf_rn, __fadd_rz, __dmul_ru, ...).
char basicArithmetic(StringRef Name) {
  if (Name == "__nv_fmaf" || Name == "__nv_fma")
    return 'f';
  auto rounded = [&](StringRef Stem) {
    if (!Name.starts_with(Stem))
      return false;
    StringRef Rest = Name.drop_front(Stem.size());
    Rest.consume_front("ieee_");
    return Rest == "rn" || Rest == "rz" || Rest == "ru" || Rest == "rd";
  };
  if (rounded("__nv_fmaf_") || rounded("__nv_fma_"))
    return 'f';
  if (rounded("__nv_fadd_") || rounded("__nv_dadd_") || rounded("__nv_fsub_") || rounded("__nv_dsub_"))
    return 'a';
  if (rounded("__nv_fmul_") || rounded("__nv_dmul_"))
    return 'm';
  return 0;
}

// Math functions that are not floating-point work: comparisons, sign manipulation, conversions.
bool isNonArithmeticMath(StringRef Name) {
  if (Name.ends_with("_rn") || Name.ends_with("_rz") || Name.ends_with("_ru") || Name.ends_with("_rd"))
    return !Name.starts_with("__nv_fsqrt") && !Name.starts_with("__nv_frcp") &&
           !Name.starts_with("__nv_fdiv") && !Name.starts_with("__nv_dsqrt") &&
           !Name.starts_with("__nv_drcp") && !Name.starts_with("__nv_ddiv") &&
           !Name.starts_with("__nv_fadd") && !Name.starts_with("__nv_fmul") &&
           !Name.starts_with("__nv_fmaf") && !Name.starts_with("__nv_dadd") &&
           !Name.starts_with("__nv_dmul") && !Name.starts_with("__nv_fma_");
  return StringSwitch<bool>(Name)
      .Cases("__nv_fmaxf", "__nv_fminf", "__nv_fmax", "__nv_fmin", true)
      .Cases("__nv_fabsf", "__nv_fabs", "__nv_copysignf", "__nv_copysign", true)
      .Cases("__nv_saturatef", "__nv_isnanf", "__nv_isinff", "__nv_isnand", "__nv_isinfd", true)
      .Cases("__nv_signbitf", "__nv_signbitd", "__nv_truncf", "__nv_floorf", "__nv_ceilf", true)
      .Cases("__nv_trunc", "__nv_floor", "__nv_ceil", "__nv_roundf", "__nv_round", true)
      .Default(false);
}

// Only a product with a single use is fused: NVIDIA's compiler keeps a multiply whose result is
// used elsewhere (measured: layernorm_warp_f32's mean = sum * (1/n) feeds 64 subtractions, which
// stay FADDs; fusing it into each would predict 23% too many FLOPs).
bool isFMul(const Value *V) {
  const auto *I = dyn_cast<Instruction>(V);
  return I && I->getOpcode() == Instruction::FMul && I->hasAllowContract() && I->hasOneUse();
}

// The fmul operand that an fadd/fsub absorbs into an fma, or null; the first when both qualify.
const Instruction *fusedMultiply(const Instruction &Add) {
  if ((Add.getOpcode() != Instruction::FAdd && Add.getOpcode() != Instruction::FSub) ||
      !Add.hasAllowContract())
    return nullptr;
  const Value *A = Add.getOperand(0), *B = Add.getOperand(1);
  bool FA = isFMul(A), FB = isFMul(B);
  if (FA && FB)
    return cast<Instruction>(A->getNumUses() <= B->getNumUses() ? A : B);
  if (FA)
    return cast<Instruction>(A);
  if (FB)
    return cast<Instruction>(B);
  return nullptr;
}

// An fmul disappears when every use of it was fused into an add.
bool multiplyFullyFused(const Instruction &Mul) {
  if (Mul.use_empty())
    return false;
  for (const User *U : Mul.users()) {
    const auto *UI = dyn_cast<Instruction>(U);
    if (!UI || fusedMultiply(*UI) != &Mul)
      return false;
  }
  return true;
}

void addLibraryCall(OpCounts &C, StringRef Name, const LibraryCost *Cost, unsigned P,
                    double Calls) {
  C.SpecialByName[Name.str()] += Calls;
  StringRef Kind = Cost ? StringRef(Cost->Kind) : StringRef("special");
  unsigned KP = Cost ? Cost->Precision : P;
  if (Kind == "div")
    C.Div[KP] += Calls;
  else if (Kind == "sqrt")
    C.Sqrt[KP] += Calls;
  else
    C.Special[KP] += Calls;
  if (!Cost) {
    ++C.UnknownSpecials;
    return;
  }
  C.Add[KP] += Calls * Cost->Add;
  C.Mul[KP] += Calls * Cost->Mul;
  C.Fma[KP] += Calls * Cost->Fma;
  C.SassAdd[KP] += Calls * Cost->Add;
  C.SassMul[KP] += Calls * Cost->Mul;
  C.SassFma[KP] += Calls * Cost->Fma;
  C.LibraryFlops[KP] += Calls * (Cost->Add + Cost->Mul + 2.0 * Cost->Fma);
}

unsigned tensorTypeOf(StringRef S) {
  if (S.contains("bf16"))
    return 1;
  if (S.contains("tf32"))
    return 2;
  if (S.contains("f64"))
    return 3;
  if (S.contains(".s8") || S.contains(".u8") || S.contains(".s4") || S.contains(".u4") ||
      S.contains(".b1"))
    return 4;
  return 0;
}

// "m16n8k16" anywhere in an intrinsic name or PTX string: 2*M*N*K FLOP per warp.
std::optional<double> tensorShapeFlops(StringRef S) {
  static const Regex Shape("m([0-9]+)n([0-9]+)k([0-9]+)");
  SmallVector<StringRef, 4> M;
  if (!Shape.match(S, &M))
    return std::nullopt;
  unsigned Mv = 0, Nv = 0, Kv = 0;
  M[1].getAsInteger(10, Mv);
  M[2].getAsInteger(10, Nv);
  M[3].getAsInteger(10, Kv);
  return 2.0 * Mv * Nv * Kv;
}

// Arithmetic written as inline PTX (cuda_fp16.h, cuda_bf16.h): every `add|sub|mul|fma[.mods].type`
// instruction of the string, and mma.sync / wmma.mma.
void countInlineAsm(OpCounts &C, StringRef Asm) {
  static const Regex Arith("(^|[^a-z.])(add|sub|mul|fma)((\\.[a-z]+)*)\\.(f16x2|bf16x2|f16|bf16|f32|f64)"
                           "([^a-z0-9]|$)");
  SmallVector<StringRef, 8> M;
  StringRef Rest = Asm;
  while (Arith.match(Rest, &M)) {
    StringRef Op = M[2], Type = M[5];
    unsigned P = Type.starts_with("bf16") ? BF16 : Type.starts_with("f16") ? FP16
                 : Type == "f32"          ? FP32
                                          : FP64;
    unsigned Elements = Type.ends_with("x2") ? 2 : 1;
    if (Op == "fma") {
      C.Fma[P] += Elements;
      C.SassFma[P] += 1;
    } else if (Op == "mul") {
      C.Mul[P] += Elements;
      C.SassMul[P] += 1;
    } else {
      C.Add[P] += Elements;
      C.SassAdd[P] += 1;
    }
    Rest = Rest.substr(Rest.find(M[0]) + M[0].size());
  }
  if (Asm.contains("mma.sync") || Asm.contains("wmma.mma"))
    if (auto F = tensorShapeFlops(Asm))
      C.TensorFlopsPerWarp[tensorTypeOf(Asm)] += *F;
}

void countCall(OpCounts &C, const CallBase &CB) {
  if (const auto *IA = dyn_cast<InlineAsm>(CB.getCalledOperand()))
    return countInlineAsm(C, IA->getAsmString());
  const Function *F = CB.getCalledFunction();
  if (!F)
    return;
  StringRef Name = F->getName();
  std::optional<unsigned> P = precisionOf(CB.getType());
  if (!P && CB.arg_size() > 0)
    P = precisionOf(CB.getArgOperand(0)->getType());
  unsigned Elements = elementsOf(CB.getType());
  if (Name.starts_with("llvm.")) {
    Intrinsic::ID ID = F->getIntrinsicID();
    if (ID == Intrinsic::fma || ID == Intrinsic::fmuladd || Name.starts_with("llvm.nvvm.fma.")) {
      if (P) {
        C.Fma[*P] += Elements;
        C.SassFma[*P] += sassInstructions(*P, Elements);
      }
      return;
    }
    if (ID == Intrinsic::sqrt && P)
      return addLibraryCall(C, *P == FP64 ? "sqrt.f64" : "sqrt.f32",
                            libraryCost(*P == FP64 ? "sqrt.f64" : "sqrt.f32"), *P, Elements);
    if (Name.starts_with("llvm.nvvm.wmma.") || Name.starts_with("llvm.nvvm.mma.")) {
      if (Name.contains(".mma.") || Name.starts_with("llvm.nvvm.mma."))
        if (auto Fl = tensorShapeFlops(Name))
          C.TensorFlopsPerWarp[tensorTypeOf(Name)] += *Fl;
      return;
    }
    // Approximate math (MUFU): special functions with no FP32-pipe instructions.
    if (P && (Name.starts_with("llvm.nvvm.ex2") || Name.starts_with("llvm.nvvm.lg2") ||
              Name.starts_with("llvm.nvvm.sin") || Name.starts_with("llvm.nvvm.cos") ||
              Name.starts_with("llvm.nvvm.rsqrt") || Name.starts_with("llvm.nvvm.rcp") ||
              Name.starts_with("llvm.exp") || Name.starts_with("llvm.log") ||
              Name.starts_with("llvm.sin") || Name.starts_with("llvm.cos") ||
              Name.starts_with("llvm.pow")))
      return addLibraryCall(C, Name, libraryCost(Name), *P, Elements);
    return; // fabs, minnum, copysign, conversions, sregs, barriers ...
  }
  if (!Name.starts_with("__nv_") || isNonArithmeticMath(Name) || !P)
    return;
  // fmaf(), __fmaf_rn(), __fadd_rn(), __dmul_rz() ...: one FMA, add or multiply each, as the
  // inline operators (libdevice implements them with the single PTX instruction).
  switch (basicArithmetic(Name)) {
  case 'f':
    C.Fma[*P] += 1;
    C.SassFma[*P] += 1;
    return;
  case 'a':
    C.Add[*P] += 1;
    C.SassAdd[*P] += 1;
    return;
  case 'm':
    C.Mul[*P] += 1;
    C.SassMul[*P] += 1;
    return;
  default:
    break;
  }
  addLibraryCall(C, Name, libraryCost(Name), *P, 1);
}

} // namespace

OpCounts countBlockOperations(const BasicBlock &BB) {
  OpCounts C;
  for (const Instruction &I : BB) {
    if (const auto *CB = dyn_cast<CallBase>(&I)) {
      countCall(C, *CB);
      continue;
    }
    Type *T = I.getType();
    switch (I.getOpcode()) {
    case Instruction::FAdd:
    case Instruction::FSub:
    case Instruction::FMul:
    case Instruction::FDiv:
    case Instruction::FRem: {
      std::optional<unsigned> P = precisionOf(T);
      if (!P)
        break;
      unsigned E = elementsOf(T);
      if (I.getOpcode() == Instruction::FMul) {
        if (!multiplyFullyFused(I)) {
          C.Mul[*P] += E;
          C.SassMul[*P] += sassInstructions(*P, E);
        }
      } else if (I.getOpcode() == Instruction::FDiv) {
        const auto *Num = dyn_cast<ConstantFP>(I.getOperand(0));
        bool Reciprocal = Num && Num->isExactlyValue(1.0);
        std::string Name = std::string(Reciprocal ? "rcp" : "fdiv") + (*P == FP64 ? ".f64" : ".f32");
        addLibraryCall(C, Name, *P == FP32 || *P == FP64 ? libraryCost(Name) : nullptr, *P, E);
      } else if (I.getOpcode() == Instruction::FRem) {
        addLibraryCall(C, "frem", nullptr, *P, E);
      } else if (fusedMultiply(I)) {
        C.Fma[*P] += E;
        C.SassFma[*P] += sassInstructions(*P, E);
      } else {
        C.Add[*P] += E;
        C.SassAdd[*P] += sassInstructions(*P, E);
      }
      break;
    }
    case Instruction::Add:
    case Instruction::Sub:
    case Instruction::Mul:
    case Instruction::UDiv:
    case Instruction::SDiv:
    case Instruction::URem:
    case Instruction::SRem:
    case Instruction::Shl:
    case Instruction::LShr:
    case Instruction::AShr:
    case Instruction::And:
    case Instruction::Or:
    case Instruction::Xor:
      if (T->isIntOrIntVectorTy() && !T->isIntOrIntVectorTy(1))
        C.IntOps += elementsOf(T);
      break;
    default:
      break;
    }
  }
  return C;
}

} // namespace cudaperf
