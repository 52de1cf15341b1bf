//===- SharedMemory.cpp - Bank conflicts of every shared-memory access -----===//
//
// For each shared-memory load, store and atomic: the byte address of every lane in representative
// warps (LaneAddress.h, the machinery the coalescing analysis uses), the wavefronts one warp
// request needs (predictSharedWavefronts in WarpRequests.h: 32 banks of 4 bytes, one word read by
// several lanes is a broadcast, 8- and 16-byte accesses served in half- and quarter-warp phases),
// averaged over the sampled warps, and a pattern (docs/json-schema.md):
//   conflict-free       the fewest wavefronts the bytes need (ideal_wavefronts: 1 up to 4-byte
//                       lanes, 2 for 8-byte, 4 for 16-byte in a full warp)
//   broadcast           every lane reads one word
//   bank-conflict       more wavefronts than ideal
//   data-dependent      the index depends on values loaded from memory (never guessed)
//   parameter-dependent the lanes' words depend on a kernel parameter whose value is unknown
//   unknown             the evaluator met something it cannot compute
// Facts for the remedy: the stride between consecutive threadIdx.x in bytes, and the shared array
// (name, dimensions, element size) the access indexes.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/AnalysisContext.h"
#include "cudaperf/Analysis/LaneAddress.h"
#include "cudaperf/Analysis/LaneGuards.h"
#include "llvm/IR/Dominators.h"
#include "cudaperf/Analysis/MemoryAccesses.h"
#include "cudaperf/Analysis/WarpRequests.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include <cmath>

using namespace llvm;

namespace cudaperf {

namespace {

double round2(double V) { return std::round(V * 100.0) / 100.0; }

/// One entry per lane of the warp in lane order (inactive lanes of a partial warp, and lanes a
/// lane guard keeps out (\p Active): none).
std::vector<std::optional<int64_t>> laneSlots(const SampledWarp &W, const std::vector<bool> &Active) {
  std::vector<std::optional<int64_t>> Slots(WarpSize);
  for (size_t L = 0; L < W.Addresses.size() && L < WarpSize; ++L)
    if (L >= Active.size() || Active[L])
      Slots[L] = W.Addresses[L];
  return Slots;
}

const SharedArrayDecl *arrayOf(const MemoryInstruction &M, const KernelReport &K) {
  const auto *GV = dyn_cast_or_null<GlobalVariable>(M.BaseValue);
  if (!GV)
    return nullptr;
  // Clang names a kernel's static __shared__ variable "_ZZ<kernel>E<name>" and a file-scope one by
  // its own name; match the source name at the end.
  StringRef IRName = GV->getName();
  for (const SharedArrayDecl &S : K.SharedArrays) {
    std::string Suffix = std::to_string(S.Name.size()) + S.Name;
    if (IRName == S.Name || IRName.ends_with("E" + Suffix) || (S.IsDynamic && IRName == S.Name))
      return &S;
  }
  return nullptr;
}

class SharedMemoryAnalysis : public KernelAnalysis {
public:
  StringRef name() const override { return "shared-memory"; }

  void run(AnalysisContext &Ctx, Function *F, KernelReport &K) override {
    if (!F)
      return;
    FunctionAnalysisManager &FAM = Ctx.functionAnalyses();
    ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(*F);
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(*F);
    LaunchFacts Facts = launchFactsFor(K, *F);
    LaneEvaluator E(*F, &SE, &LI, Facts);
    LaneGuards Guards(*F, FAM.getResult<DominatorTreeAnalysis>(*F), &SE, &LI, Facts);

    const MemoryInventory &Inv = Ctx.memoryAccesses(*F);
    for (const MemoryInstruction &M : Inv.Accesses) {
      if (M.Space != MemorySpace::Shared)
        continue;
      MemoryAccess A;
      A.Loc = M.Loc;
      if (A.Loc.File.empty())
        A.Loc.File = K.Loc.File;
      A.Space = "shared";
      A.Op = toString(M.Kind);
      A.Bytes = M.Bytes;
      Loop *Inner = LI.getLoopFor(M.inst()->getParent());
      std::optional<int64_t> Exec = executionsPerThread(E, SE, LI, M.inst()->getParent());
      if (Exec)
        *Exec *= M.Count;
      A.ExecutionsPerThread = Exec;
      if (const SharedArrayDecl *S = arrayOf(M, K)) {
        A.Array = S->Name;
        A.ArrayDims = std::vector<int64_t>(S->Dims.begin(), S->Dims.end());
        A.ElementBytes = int64_t(S->ElementBytes);
      }

      LaneAddressSummary Sum = summarizeLaneAddresses(E, M.Pointer, Inner != nullptr);
      if (Sum.Flags & LaneDataDependent) {
        A.Pattern = "data-dependent";
      } else if (Sum.Flags & (LaneUnsupported | LaneNonAffineRecurrence)) {
        A.Pattern = "unknown";
        A.UnknownReason =
            Sum.Flags & LaneNonAffineRecurrence
                ? "a loop variable changes by something other than a constant step each iteration "
                  "(multiplied, shifted or divided, e.g. stride *= 2): its value per iteration is not "
                  "modelled"
                : "the index uses an operation the evaluator does not model";
        if (Inner)
          A.UnknownLoopLine = Inner->getStartLoc() ? Inner->getStartLoc().getLine() // the `for` itself
                                                     : sourceLocationOf(*Inner->getHeader()->getFirstNonPHIOrDbg()).Line;
      } else {
        double Ways = 0, Ideal = 0;
        unsigned Samples = 0;
        bool Broadcast = true, Guarded = false;
        // Lanes a lane guard keeps out of the access (`if (tid < 32)`) take no part in it; when
        // the guard lets no sampled lane through, the unguarded access is judged.
        std::vector<std::vector<bool>> Masks;
        bool AnyActive = false;
        for (const SampledWarp &W : Sum.Warps) {
          Masks.push_back(Guards.activeLanes(M.inst()->getParent(), W.Sample));
          for (size_t L = 0; L < W.Addresses.size() && L < Masks.back().size(); ++L)
            AnyActive |= Masks.back()[L];
        }
        for (size_t WI = 0; WI < Sum.Warps.size(); ++WI) {
          const SampledWarp &W = Sum.Warps[WI];
          std::vector<bool> Active = AnyActive ? Masks[WI] : std::vector<bool>();
          std::vector<int64_t> Live;
          for (size_t L = 0; L < W.Addresses.size(); ++L)
            if (L >= Active.size() || Active[L])
              Live.push_back(W.Addresses[L]);
          Guarded |= Live.size() != W.Addresses.size();
          if (Live.empty())
            continue;
          Ways += predictSharedWavefronts(laneSlots(W, Active), M.Bytes);
          // Shared memory delivers 128 bytes per wavefront: a warp of 8-byte lanes needs two
          // even without any conflict, 16-byte lanes four.
          Ideal += std::max<int64_t>(1, (int64_t(Live.size()) * M.Bytes + 127) / 128);
          ++Samples;
          for (int64_t Addr : Live)
            Broadcast &= Addr / SharedBankBytes == Live.front() / SharedBankBytes;
        }
        if (Guarded)
          A.LaneGuarded = true;
        if (Samples) {
          A.BankConflictWays = round2(Ways / Samples);
          A.IdealWavefronts = round2(Ideal / Samples);
          if (Sum.Flags & LaneUnknownParam)
            A.Pattern = "parameter-dependent";
          else if (Broadcast)
            A.Pattern = "broadcast";
          else
            A.Pattern = Ways > Ideal ? "bank-conflict" : "conflict-free";
        } else {
          A.Pattern = "unknown";
        }
      }
      if (Sum.Affine && Sum.CoefX) {
        A.Coefficients = ThreadCoefficients{*Sum.CoefX, *Sum.CoefY, *Sum.CoefZ};
        A.StrideBytes = *Sum.CoefX;
      }
      A.Address = describeAddress(SE, M.Pointer);
      K.Accesses.push_back(std::move(A));
    }
  }
};

} // namespace

std::unique_ptr<KernelAnalysis> createSharedMemoryAnalysis() {
  return std::make_unique<SharedMemoryAnalysis>();
}

} // namespace cudaperf
