//===- FlopCount.h - Floating-point work of one basic block ----*- C++ -*-===//
//
// Counts what one execution of a basic block does, by precision, the way NVIDIA's compiler will
// execute it (docs/accuracy.md, "FLOPs and DRAM traffic", has the measured check of each rule):
//  - fadd/fsub -> add, fmul -> mul, llvm.fma/llvm.fmuladd -> fma (2 FLOP); vector operations count
//    each element; fneg, fabs, min/max, compares and conversions are not FLOPs (no FADD/FMUL/FFMA).
//  - Contraction: clang emits separate `fmul contract` / `fadd contract` for CUDA at -O3 and the
//    back end (and ptxas for nvcc) fuses them. An fadd/fsub with the contract flag whose operand is
//    an fmul with the contract flag and no other use becomes one fma (at most one multiply per
//    add); a product used elsewhere stays an fmul and the add stays an add (as measured).
//  - Division, square root and math-library calls (`__nv_*`, libdevice is not linked) are counted
//    separately by name, and also add the FADD/FMUL/FFMA (DADD/...) instructions their expansion
//    executes on its fast path (table in FlopCount.cpp, with the source of each row).
//  - fp16/bf16 arithmetic written as inline PTX (cuda_fp16.h's add.f16, fma.rn.f16x2, ...) is
//    parsed from the asm string; `.f16x2` is one instruction doing two element operations.
//  - Tensor cores: llvm.nvvm.wmma.*.mma.* / llvm.nvvm.mma.* intrinsics and inline `mma.sync` /
//    `wmma.mma` PTX: 2*M*N*K FLOP per warp instruction.
//  - Integer operations: integer add/sub/mul/div/rem/shift/logic instructions of the IR (an
//    IR-level count: address arithmetic that SASS folds into addressing modes is included).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_FLOPCOUNT_H
#define CUDAPERF_ANALYSIS_FLOPCOUNT_H

#include "llvm/ADT/StringRef.h"
#include <array>
#include <map>
#include <string>

namespace llvm {
class BasicBlock;
} // namespace llvm

namespace cudaperf {

enum Precision : unsigned { FP16 = 0, BF16 = 1, FP32 = 2, FP64 = 3 };
constexpr unsigned NumPrecisions = 4;
const char *precisionName(unsigned P); // fp16 | bf16 | fp32 | fp64
/// Input types of tensor-core instructions: fp16, bf16, tf32, fp64, int8 (also int4, b1).
constexpr unsigned NumTensorTypes = 5;
const char *tensorTypeName(unsigned T);

/// Counts per precision. Element operations (FLOP = Add + Mul + 2 * Fma) and, separately, the
/// thread-level instructions the SASS counters see (smsp__sass_thread_inst_executed_op_*: a packed
/// f16x2 instruction is one instruction).
struct OpCounts {
  std::array<double, NumPrecisions> Add{}, Mul{}, Fma{};          // after contraction, incl. library
  std::array<double, NumPrecisions> LibraryFlops{};              // part of the above from expansions
  std::array<double, NumPrecisions> SassAdd{}, SassMul{}, SassFma{};
  std::array<double, NumPrecisions> Div{}, Sqrt{}, Special{};    // operations counted by kind
  std::map<std::string, double> SpecialByName;                   // "__nv_expf", "fdiv f32", ...
  std::array<double, NumTensorTypes> TensorFlopsPerWarp{};       // by tensorTypeName()
  double IntOps = 0;
  unsigned UnknownSpecials = 0; // calls whose expansion cost is not in the table

  double flops(unsigned P) const { return Add[P] + Mul[P] + 2 * Fma[P]; }
  double flops() const;
  bool empty() const;
  /// this += Scale * O (SpecialByName merged likewise).
  void addScaled(const OpCounts &O, double Scale);
};

/// The operations of one execution of \p BB (per thread), contraction applied.
OpCounts countBlockOperations(const llvm::BasicBlock &BB);

/// What one call of a math function (or one fdiv/sqrt) adds to the SASS FP counters on its fast
/// path; null when not in the table.
struct LibraryCost {
  const char *Name;     // "__nv_expf", "fdiv.f32", "rcp.f32", "sqrt.f32", ...
  unsigned Precision;   // of the FP instructions it executes
  unsigned Add, Mul, Fma;
  const char *Kind;     // "special", "div" or "sqrt"
  const char *Source;
};
const LibraryCost *libraryCost(llvm::StringRef Name);

} // namespace cudaperf

#endif
