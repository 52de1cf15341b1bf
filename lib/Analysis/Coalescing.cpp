//===- Coalescing.cpp - Sectors per warp request of every global access ---===//
//
// For each global (or unresolved generic) memory instruction of a kernel: the byte address of every
// lane in representative warps (LaneAddress.h), the average number of distinct 32-byte sectors one
// warp request touches, the thread-index coefficients, the executions per thread (loop trip counts)
// and a pattern (docs/json-schema.md, docs/checks/cuda-uncoalesced-access.md):
//   coalesced           sectors == ideal (ceil of the distinct bytes the warp touches / 32)
//   misaligned          more than ideal, but ideal once the warp's lowest address is 128-byte aligned
//   strided             more than ideal for another reason (a stride, several rows, a permutation)
//   broadcast           every lane uses one address
//   data-dependent      the address depends on values loaded from memory (never guessed)
//   parameter-dependent the lane pattern depends on a kernel parameter whose value is unknown; the
//                       worst case over representative values is reported
//   unknown             the evaluator met something it cannot compute (recorded in the notes)
// Unknown integer parameters take the representative value 1024 (a typical power-of-two size); when
// that changes only the alignment of the warp (a row offset n*i), the pattern keeps the value for
// 1024 and the worst case over other values is added as sectors_per_request_worst with a note.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/AnalysisContext.h"
#include "cudaperf/Analysis/LaneAddress.h"
#include "cudaperf/Analysis/LaneGuards.h"
#include "cudaperf/Analysis/MemoryAccesses.h"
#include "cudaperf/Analysis/WarpRequests.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>

using namespace llvm;

namespace cudaperf {

namespace {

// Values tried for unknown integer parameters when looking for the worst case.
constexpr int64_t MainParamValue = 1024;
constexpr int64_t AlternativeParamValues[] = {1, 2, 3, 17, 1000, 1023, 1025};

struct WarpCost {
  double Sectors = 0;
  double Ideal = 0;
  double AlignedSectors = 0;
  bool Broadcast = true;
  unsigned Samples = 0;
};

int64_t distinctBytes(std::vector<int64_t> Addr, unsigned Bytes) {
  std::sort(Addr.begin(), Addr.end());
  int64_t Total = 0, End = INT64_MIN;
  for (int64_t A : Addr) {
    int64_t Start = std::max(A, End);
    if (A + int64_t(Bytes) > Start)
      Total += A + Bytes - Start;
    End = std::max(End, A + int64_t(Bytes));
  }
  return Total;
}

WarpCost costOf(const LaneAddressSummary &S, unsigned Bytes) {
  WarpCost C;
  for (const SampledWarp &W : S.Warps) {
    if (W.Addresses.empty())
      continue;
    ++C.Samples;
    C.Sectors += predictSectorsPerRequest(W.Addresses, Bytes);
    C.Ideal += (distinctBytes(W.Addresses, Bytes) + SectorBytes - 1) / SectorBytes;
    int64_t Min = *std::min_element(W.Addresses.begin(), W.Addresses.end());
    int64_t Shift = ((Min % 128) + 128) % 128;
    std::vector<int64_t> Aligned = W.Addresses;
    for (int64_t &A : Aligned)
      A -= Shift;
    C.AlignedSectors += predictSectorsPerRequest(Aligned, Bytes);
    if (std::any_of(W.Addresses.begin(), W.Addresses.end(),
                    [&](int64_t A) { return A != W.Addresses.front(); }))
      C.Broadcast = false;
  }
  if (C.Samples) {
    C.Sectors /= C.Samples;
    C.Ideal /= C.Samples;
    C.AlignedSectors /= C.Samples;
  }
  return C;
}

// Offsets of each lane from the first lane of its row (same threadIdx.y and .z): what threadIdx.x
// does to the address, independent of where rows start.
std::vector<int64_t> rowPattern(const LaneAddressSummary &S) {
  std::vector<int64_t> Out;
  for (const SampledWarp &W : S.Warps) {
    for (size_t L = 0; L < W.Addresses.size(); ++L) {
      size_t First = L;
      while (First > 0 && W.Sample.Lanes[First - 1].Y == W.Sample.Lanes[L].Y &&
             W.Sample.Lanes[First - 1].Z == W.Sample.Lanes[L].Z)
        --First;
      Out.push_back(W.Addresses[L] - W.Addresses[First]);
    }
  }
  return Out;
}

double round2(double V) { return std::round(V * 100.0) / 100.0; }

/// Drops the lanes that a lane guard (`if (threadIdx.x == 0)`, `lane < k`) keeps out of \p BB from
/// every sampled warp, and the warps left with none; when no sampled warp keeps a lane, \p S is
/// left as it was (the guard is then never true in the samples: judge the unguarded access).
/// Returns whether a guard removed lanes.
bool applyLaneGuards(LaneGuards &G, const BasicBlock *BB, LaneAddressSummary &S) {
  std::vector<SampledWarp> Kept;
  size_t Before = 0, After = 0;
  for (SampledWarp W : S.Warps) {
    Before += W.Addresses.size();
    if (keepActiveLanes(G, BB, W)) {
      After += W.Addresses.size();
      Kept.push_back(std::move(W));
    }
  }
  if (Kept.empty() || After == Before)
    return false;
  S.Warps = std::move(Kept);
  return true;
}

bool isGridStride(ScalarEvolution &SE, Loop *L) {
  for (PHINode &Phi : L->getHeader()->phis()) {
    if (!SE.isSCEVable(Phi.getType()))
      continue;
    const auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi));
    if (!AR || !AR->isAffine())
      continue;
    auto ReadsSreg = [](const SCEV *S, Intrinsic::ID A, Intrinsic::ID B, Intrinsic::ID C) {
      return SCEVExprContains(S, [&](const SCEV *X) {
        const auto *U = dyn_cast<SCEVUnknown>(X);
        const auto *II = U ? dyn_cast<IntrinsicInst>(U->getValue()) : nullptr;
        return II && (II->getIntrinsicID() == A || II->getIntrinsicID() == B ||
                      II->getIntrinsicID() == C);
      });
    };
    if (ReadsSreg(AR->getStart(), Intrinsic::nvvm_read_ptx_sreg_tid_x, Intrinsic::nvvm_read_ptx_sreg_tid_y,
                  Intrinsic::nvvm_read_ptx_sreg_tid_z) &&
        ReadsSreg(AR->getStepRecurrence(SE), Intrinsic::nvvm_read_ptx_sreg_nctaid_x,
                  Intrinsic::nvvm_read_ptx_sreg_nctaid_y, Intrinsic::nvvm_read_ptx_sreg_nctaid_z))
      return true;
  }
  return false;
}

// Whether the address indexes an array of structures (a GEP over a struct type on the way to the base).
bool indexesStructArray(const Value *Ptr) {
  for (int Depth = 0; Ptr && Depth < 8; ++Depth) {
    const auto *GEP = dyn_cast<GEPOperator>(Ptr);
    if (!GEP)
      return false;
    if (GEP->getSourceElementType()->isStructTy() && GEP->getNumIndices() >= 1 &&
        !isa<Constant>(GEP->getOperand(1)))
      return true;
    Ptr = GEP->getPointerOperand();
  }
  return false;
}

std::string baseDescription(const MemoryInstruction &M, const KernelReport &K) {
  if (!M.BaseValue)
    return "unknown";
  if (const auto *A = dyn_cast<Argument>(M.BaseValue))
    return "parameter " + (A->getArgNo() < K.Params.size() ? K.Params[A->getArgNo()].Name
                                                            : A->getName().str());
  if (M.Base == BaseKind::KernelParam)
    return "parameter field";
  if (M.Base == BaseKind::LoadedPointer)
    return "pointer loaded from memory";
  if (M.Base == BaseKind::Variable)
    return "variable " + M.BaseValue->getName().str();
  return "unknown";
}

class CoalescingAnalysis : public KernelAnalysis {
public:
  StringRef name() const override { return "coalescing"; }

  void run(AnalysisContext &Ctx, Function *F, KernelReport &K) override {
    if (!F)
      return;
    FunctionAnalysisManager &FAM = Ctx.functionAnalyses();
    ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(*F);
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(*F);

    LaunchFacts Facts = launchFactsFor(K, *F);
    nameSpecialValues(*F, Facts.ParamNames);

    LaneEvaluator E(*F, &SE, &LI, Facts);
    LaneGuards Guards(*F, FAM.getResult<DominatorTreeAnalysis>(*F), &SE, &LI, Facts);
    this->Guards = &Guards;
    const MemoryInventory &Inv = Ctx.memoryAccesses(*F);

    double WeightedIdeal = 0, WeightedPredicted = 0;
    bool AnyUnknownExecutions = false;
    unsigned Counted = 0;
    for (const MemoryInstruction &M : Inv.Accesses) {
      if (M.Space == MemorySpace::Texture || M.Space == MemorySpace::Surface) {
        K.Accesses.push_back(textureAccess(M, K, E, SE, LI));
        continue;
      }
      if (M.Space != MemorySpace::Global && M.Space != MemorySpace::Generic)
        continue;
      MemoryAccess A = analyseAccess(M, K, E, SE, LI);
      if (A.SectorsPerRequest && A.Pattern != "parameter-dependent") {
        double Ideal = A.IdealSectorsPerRequest.value_or(*A.SectorsPerRequest);
        std::optional<double> Exec;
        if (std::optional<int64_t> N = A.knownExecutionsPerThread())
          Exec = double(*N);
        if (!Exec)
          AnyUnknownExecutions = true;
        double W = Exec.value_or(1.0);
        if (W > 0 || !Exec) {
          WeightedIdeal += Ideal * (Exec ? W : 1.0);
          WeightedPredicted += *A.SectorsPerRequest * (Exec ? W : 1.0);
          ++Counted;
        }
      }
      K.Accesses.push_back(std::move(A));
    }
    if (Counted && WeightedPredicted > 0) {
      K.CoalescingEfficiency = round2(std::min(1.0, WeightedIdeal / WeightedPredicted));
      if (AnyUnknownExecutions)
        K.Notes.push_back("coalescing_efficiency weighs accesses with unknown trip counts as "
                          "executing once per thread");
    }
    for (const OpaqueCall &C : Inv.Calls)
      K.Notes.push_back("call to " + (C.Callee.empty() ? std::string("an indirect function") : C.Callee) +
                        " at line " + std::to_string(C.Loc.Line) +
                        " was not inlined: its memory accesses are not analysed");
  }

private:
  LaneGuards *Guards = nullptr;

  /// Texture fetches and surface accesses read and write global memory through the texture units,
  /// addressed by a handle and coordinates: listed with their executions, sectors not predicted.
  MemoryAccess textureAccess(const MemoryInstruction &M, const KernelReport &K, LaneEvaluator &E,
                             ScalarEvolution &SE, LoopInfo &LI) {
    MemoryAccess A = accessOf(M, K);
    A.Pattern = "not-modelled";
    std::string ExecExpr;
    std::optional<int64_t> Exec = executionsPerThread(E, SE, LI, M.inst()->getParent(), &ExecExpr);
    A.ExecutionsPerThread = Exec;
    if (!Exec && !ExecExpr.empty())
      A.ExecutionsPerThreadExpr = ExecExpr;
    A.Notes = {"through the texture units (handle and coordinates): sectors per request are not "
               "predicted"};
    return A;
  }

  /// Where and what \p M is, as the report lists it.
  static MemoryAccess accessOf(const MemoryInstruction &M, const KernelReport &K) {
    MemoryAccess A;
    A.Loc = M.Loc;
    if (A.Loc.File.empty())
      A.Loc.File = K.Loc.File;
    A.Space = toString(M.Space);
    A.Op = toString(M.Kind);
    A.Bytes = M.Bytes;
    return A;
  }

  MemoryAccess analyseAccess(const MemoryInstruction &M, const KernelReport &K, LaneEvaluator &E,
                             ScalarEvolution &SE, LoopInfo &LI) {
    MemoryAccess A = accessOf(M, K);
    std::vector<std::string> &Notes = A.Notes;
    if (!M.Note.empty())
      Notes.push_back(M.Note);
    A.Base = baseDescription(M, K);

    // Executions per thread: the product of the enclosing loops' trip counts.
    Loop *Inner = LI.getLoopFor(M.inst()->getParent());
    std::string ExecExpr;
    std::optional<int64_t> Exec = executionsPerThread(E, SE, LI, M.inst()->getParent(), &ExecExpr);
    if (Exec)
      *Exec *= M.Count;
    unsigned Depth = 0;
    bool GridStride = false;
    for (Loop *L = Inner; L; L = L->getParentLoop()) {
      ++Depth;
      GridStride |= isGridStride(SE, L);
    }
    A.LoopDepth = Depth;
    A.ExecutionsPerThread = Exec;
    if (!Exec && !ExecExpr.empty())
      A.ExecutionsPerThreadExpr = ExecExpr;
    A.GridStrideLoop = GridStride;

    LaneAddressSummary S = summarizeLaneAddresses(E, M.Pointer, Inner != nullptr, MainParamValue, M.Offset);
    if (applyLaneGuards(*Guards, M.inst()->getParent(), S))
      A.LaneGuarded = true;
    A.Address = describeAddress(SE, M.Pointer);
    if (S.Affine) {
      A.Coefficients = ThreadCoefficients{*S.CoefX, *S.CoefY, *S.CoefZ};
      A.StrideBytes = *S.CoefX;
      if (M.Bytes && *S.CoefX % M.Bytes == 0)
        A.StrideElements = double(*S.CoefX / M.Bytes);
      else if (M.Bytes)
        A.StrideElements = round2(double(*S.CoefX) / M.Bytes);
    } else {
      A.Coefficients = std::optional<ThreadCoefficients>();
    }
    A.UnknownParams.assign(S.UnknownParams.begin(), S.UnknownParams.end());

    auto Finish = [&](std::string Pattern) {
      A.Pattern = std::move(Pattern);
      return std::move(A);
    };

    if (S.Flags & LaneDataDependent) {
      // Lane offsets are only meaningful relative to a loaded base pointer.
      if (M.Base != BaseKind::LoadedPointer) {
        A.Coefficients = std::optional<ThreadCoefficients>();
        A.StrideBytes.reset();
        A.StrideElements.reset();
      }
      Notes.push_back(M.Base == BaseKind::LoadedPointer
                          ? "the base pointer is loaded from memory"
                          : "the address depends on a value loaded from memory");
      return Finish("data-dependent");
    }
    if (S.Flags & (LaneUnsupported | LaneControlDependent)) {
      Notes.push_back(S.Flags & LaneControlDependent
                          ? "the address merges lane-varying values from different control paths"
                          : "the address uses an operation the evaluator does not model");
      A.UnknownReason = Notes.back();
      if (Inner)
        A.UnknownLoopLine = Inner->getStartLoc() ? Inner->getStartLoc().getLine() // the `for` itself
                                                     : sourceLocationOf(*Inner->getHeader()->getFirstNonPHIOrDbg()).Line;
      return Finish("unknown");
    }
    if (S.Flags & LaneNonAffineRecurrence)
      Notes.push_back("a loop variable is not an affine recurrence: its value on loop entry is used");
    if (S.Flags & LaneUnknownGrid)
      Notes.push_back("gridDim is unknown: a representative grid of 264x4x4 blocks is assumed");
    if (K.Launch.Origin == LaunchOrigin::Assumed && (S.Flags & LaneUsesThreadIdx))
      Notes.push_back("block shape assumed (" + K.Launch.Block.str() + "); give it with --launch");

    WarpCost Main = costOf(S, M.Bytes);
    // The first sampled warp whose lowest address is off a sector boundary (rows of an odd length
    // start aligned in some warps and not in others); the first warp when every one is aligned.
    std::optional<int64_t> Misalignment;
    for (const SampledWarp &W : S.Warps) {
      if (W.Addresses.empty())
        continue;
      int64_t Min = *std::min_element(W.Addresses.begin(), W.Addresses.end());
      int64_t Off = ((Min % SectorBytes) + SectorBytes) % SectorBytes;
      if (!Misalignment || (*Misalignment == 0 && Off != 0))
        Misalignment = Off;
    }
    if (Misalignment)
      A.MisalignmentBytes = *Misalignment;
    if (S.Affine && *S.CoefX != 0 && indexesStructArray(M.Pointer))
      A.StructStride = true;
    A.IdealSectorsPerRequest = round2(Main.Ideal);
    A.SectorsPerRequest = round2(Main.Sectors);

    if (Main.Broadcast && Main.Samples)
      return Finish("broadcast");

    if (S.Flags & LaneUnknownParam) {
      std::vector<int64_t> MainRows = rowPattern(S);
      bool StrideDepends = false;
      double Worst = Main.Sectors;
      for (int64_t V : AlternativeParamValues) {
        LaneAddressSummary Alt = summarizeLaneAddresses(E, M.Pointer, Inner != nullptr, V, M.Offset);
        applyLaneGuards(*Guards, M.inst()->getParent(), Alt);
        Worst = std::max(Worst, costOf(Alt, M.Bytes).Sectors);
        StrideDepends |= rowPattern(Alt) != MainRows;
      }
      std::string Names;
      for (const std::string &N : S.UnknownParams)
        Names += (Names.empty() ? "'" : ", '") + N + "'";
      if (StrideDepends) {
        A.SectorsPerRequestTypical = round2(Main.Sectors);
        A.SectorsPerRequest = round2(Worst);
        Notes.push_back("the stride between lanes depends on " + Names +
                        ", whose value is unknown: worst case over representative values shown; "
                        "give the value with --param KERNEL:NAME=VALUE");
        return Finish("parameter-dependent");
      }
      if (Worst > Main.Sectors + 1e-9) {
        A.SectorsPerRequestWorst = round2(Worst);
        Notes.push_back("assumes " + Names + " = " + std::to_string(MainParamValue) +
                        " keeps the warp's first address 32-byte aligned; other values can raise "
                        "it to " + llvm::formatv("{0:F2}", Worst).str() + " sectors");
      }
    }

    if (Main.Sectors <= Main.Ideal + 1e-9)
      return Finish("coalesced");
    if (Main.AlignedSectors <= Main.Ideal + 1e-9)
      return Finish("misaligned");
    return Finish("strided");
  }
};

} // namespace

std::unique_ptr<KernelAnalysis> createCoalescingAnalysis() {
  return std::make_unique<CoalescingAnalysis>();
}

} // namespace cudaperf
