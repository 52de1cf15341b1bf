//===- Work.cpp - FLOPs, bytes, arithmetic intensity and the roofline bound ===//
//
// Fills KernelReport::Work (WorkFacts; keys in docs/json-schema.md, rules in docs/accuracy.md):
//  - execution counts of every basic block over the launch (ThreadExecution.h) times the
//    operations of the block (FlopCount.h) give FLOPs by precision and kind, integer operations
//    and tensor-core FLOPs;
//  - global bytes requested (lane executions x bytes) and sectors moved (warp executions x the
//    coalescing analysis's sectors per request), shared-memory bytes;
//  - DRAM estimates per array (base pointer): the distinct sectors of the union of the ranges its
//    accesses cover over the whole grid (Footprint.h), at most the sectors moved; reads from loads
//    and atomics, writes from stores and atomics; a data-dependent access counts its sectors moved
//    unless an affine access of the same array bounds it;
//  - arithmetic intensity = FLOP / (DRAM read + write estimate), and the roofline lower bound on
//    time for the device of the target architecture (the GPU table of lib/Support).
// Runs after the coalescing analysis, whose per-access sectors it reads.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/AnalysisContext.h"
#include "cudaperf/Analysis/FlopCount.h"
#include "cudaperf/Analysis/LaneAddress.h"
#include "cudaperf/Analysis/Footprint.h"
#include "cudaperf/Analysis/MemoryAccesses.h"
#include "cudaperf/Analysis/ThreadExecution.h"
#include "cudaperf/Support/Arch.h"
#include "cudaperf/Support/GpuTable.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/FormatVariadic.h"
#include <cctype>
#include <cmath>
#include <map>

using namespace llvm;

namespace cudaperf {

namespace {

// JSON numbers: counts as integers when they are whole, else two decimals of precision that
// matter (per-thread averages).
json::Value number(double V) {
  if (std::isfinite(V) && std::fabs(V) < 9e15 && V == std::floor(V))
    return int64_t(V);
  if (std::fabs(V) >= 1e6)
    return std::round(V);
  return std::round(V * 1000.0) / 1000.0;
}

// The value number() writes, for the typed section (WorkFacts writes whole numbers as integers).
double rounded(double V) { return *number(V).getAsNumber(); }
WorkCount optionalNumber(std::optional<double> V) {
  return V ? WorkCount(rounded(*V)) : std::nullopt;
}

// clang discards IR value names, so ScalarEvolution prints kernel arguments as %0, %1, ... (the
// first slots of an unnamed function): put the parameter names back.
std::string readableExpr(StringRef Expr, const std::vector<std::string> &ParamNames) {
  std::string Out;
  for (size_t I = 0; I < Expr.size(); ++I) {
    if (Expr[I] == '%' && I + 1 < Expr.size() && std::isdigit(static_cast<unsigned char>(Expr[I + 1]))) {
      size_t J = I + 1;
      while (J < Expr.size() && std::isdigit(static_cast<unsigned char>(Expr[J])))
        ++J;
      unsigned Slot = 0;
      if (!Expr.slice(I + 1, J).getAsInteger(10, Slot) && Slot < ParamNames.size() &&
          !ParamNames[Slot].empty()) {
        Out += ParamNames[Slot];
        I = J - 1;
        continue;
      }
    }
    Out += Expr[I];
  }
  return Out;
}

struct ArrayTraffic {
  std::string Name;
  SourceLocation FirstLoad;
  std::vector<ByteRange> ReadRanges, WriteRanges;
  double ReadMoved = 0, WriteMoved = 0;         // sector bytes moved per thread
  double UnknownReadRequested = 0, UnknownWriteRequested = 0;
  double AtomicShare = 0; // fraction of the writes' sectors moved by atomics
  double LoadRequested = 0;                     // per thread
  bool HasLoads = false, AllLoadsStaged = true;
};

bool feedsSharedStore(const Instruction *Load) {
  if (Load->use_empty())
    return false;
  for (const User *U : Load->users()) {
    const auto *St = dyn_cast<StoreInst>(U);
    if (!St || St->getValueOperand() != Load)
      return false;
    BaseKind K;
    const Value *B = nullptr;
    if (resolveBase(St->getPointerOperand(), K, B) != MemorySpace::Shared)
      return false;
  }
  return true;
}

std::string arrayName(const MemoryInstruction &M, const KernelReport &K) {
  if (const auto *A = dyn_cast_or_null<Argument>(M.BaseValue))
    return A->getArgNo() < K.Params.size() ? K.Params[A->getArgNo()].Name : A->getName().str();
  if (M.BaseValue && M.Base == BaseKind::Variable)
    return M.BaseValue->getName().str();
  return "";
}

// The coalescing analysis's record of \p M: the next access of K.Accesses (from \p From) with the
// same position, space, operation and width.
MemoryAccess *matchAccess(const MemoryInstruction &M, KernelReport &K, size_t &From) {
  for (size_t I = From; I < K.Accesses.size(); ++I) {
    MemoryAccess &A = K.Accesses[I];
    if (A.Loc.Line == M.Loc.Line && A.Loc.Column == M.Loc.Column && A.Space == toString(M.Space) &&
        A.Op == toString(M.Kind) && A.Bytes == M.Bytes) {
      From = I + 1;
      return &A;
    }
  }
  return nullptr;
}

class WorkAnalysis : public KernelAnalysis {
public:
  StringRef name() const override { return "work"; }

  void run(AnalysisContext &Ctx, Function *F, KernelReport &K) override {
    if (!F)
      return;
    FunctionAnalysisManager &FAM = Ctx.functionAnalyses();
    ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(*F);
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(*F);

    LaunchFacts Facts = launchFactsFor(K, *F);
    nameSpecialValues(*F, Facts.ParamNames); // symbolic trip counts read like the source

    const MemoryInventory &Inv = Ctx.memoryAccesses(*F);
    std::vector<TrackedAddress> Tracked;
    std::vector<size_t> TrackedOf(Inv.Accesses.size(), SIZE_MAX);
    for (size_t I = 0; I < Inv.Accesses.size(); ++I) {
      const MemoryInstruction &M = Inv.Accesses[I];
      if (M.Space != MemorySpace::Global && M.Space != MemorySpace::Generic)
        continue;
      TrackedOf[I] = Tracked.size();
      Tracked.push_back({M.Pointer, M.inst()->getParent(), M.Bytes * M.Count});
    }
    ExecutionProfile P = profileExecution(*F, SE, LI, Facts, Tracked);

    // Operations per thread; the part inside loops of unknown count, by loop nest, for the
    // symbolic expression.
    OpCounts Ops;
    bool FlopsUnknown = false;
    std::map<std::string, double> UnknownTerms; // trip expressions -> FLOP per trip product
    for (const BasicBlock &BB : *F) {
      double Execs = P.PerThread.lookup(&BB);
      OpCounts B = countBlockOperations(BB);
      if (B.empty() || Execs == 0)
        continue;
      Ops.addScaled(B, Execs);
      for (unsigned T = 0; T < NumTensorTypes; ++T) // tensor work is per warp instruction
        Ops.TensorFlopsPerWarp[T] += B.TensorFlopsPerWarp[T] * (P.WarpsPerThread.lookup(&BB) - Execs);
      if (P.UnknownTrip.count(&BB) && B.flops() > 0) {
        FlopsUnknown = true;
        std::string Trips;
        for (const Loop *L = LI.getLoopFor(&BB); L; L = L->getParentLoop())
          Trips += (Trips.empty() ? "(" : " * (") + P.TripExpr.lookup(L->getHeader()) + ")";
        UnknownTerms[Trips] += B.flops() * Execs;
      }
    }

    // Bytes per thread.
    double LoadRequested = 0, StoreRequested = 0, LoadSectors = 0, StoreSectors = 0, Shared = 0;
    bool SectorsUnknown = false, BytesUnknown = false;
    std::map<const Value *, ArrayTraffic> Arrays;
    std::vector<const Value *> ArrayOrder;
    size_t MatchFrom = 0;
    for (size_t I = 0; I < Inv.Accesses.size(); ++I) {
      const MemoryInstruction &M = Inv.Accesses[I];
      const BasicBlock *BB = M.inst()->getParent();
      double Lanes = P.PerThread.lookup(BB) * M.Count;
      double Warps = P.WarpsPerThread.lookup(BB) * M.Count;
      if (P.UnknownTrip.count(BB) && Lanes > 0)
        BytesUnknown = true;
      if (M.Space == MemorySpace::Shared) {
        Shared += Lanes * M.Bytes;
        continue;
      }
      if (TrackedOf[I] == SIZE_MAX)
        continue;
      MemoryAccess *A = matchAccess(M, K, MatchFrom);
      const AddressExtent &X = P.Extents[TrackedOf[I]];
      // Executions over the launch, lane by lane: unlike executions_per_thread (the loops' trip
      // counts), this counts the guards (`if (lane == 0) atomicAdd(...)` runs once per warp).
      if (A)
        A->LaneExecutions = P.Threads && !P.UnknownTrip.count(BB)
                                ? std::optional<double>(rounded(Lanes * *P.Threads))
                                : std::nullopt;
      std::optional<double> SPR = A ? A->SectorsPerRequest : std::nullopt;
      if (A && A->Pattern == "parameter-dependent") // worst case there; the typical value here
        if (auto Typ = A->SectorsPerRequestTypical)
          SPR = *Typ;
      if (!SPR) {
        SectorsUnknown = !A; // no coalescing record at all
        SPR = double(WarpSize) * std::ceil(M.Bytes / double(SectorBytes));
      } else if (X.Known && X.ActiveSectorShare < 1.0 - 1e-9) {
        // The coalescing analysis predicts for whole warps; guards that idle lanes of some warps (the
        // partial last warp behind a bounds check) leave their requests fewer sectors. What the launch
        // averages: docs/json-schema.md, "launch_sectors_per_request".
        SPR = *SPR * X.ActiveSectorShare;
        if (A && A->SectorsPerRequest)
          A->LaunchSectorsPerRequest = std::round(*SPR * 100.0) / 100.0;
      }
      double Requested = Lanes * M.Bytes, Moved = Warps * *SPR * SectorBytes;
      bool Reads = M.Kind != AccessKind::Store, Writes = M.Kind != AccessKind::Load;
      if (Reads) {
        LoadRequested += Requested;
        LoadSectors += Warps * *SPR;
      } else {
        StoreRequested += Requested;
        StoreSectors += Warps * *SPR;
      }

      const Value *Key = M.BaseValue ? M.BaseValue : M.inst();
      if (!Arrays.count(Key))
        ArrayOrder.push_back(Key);
      ArrayTraffic &T = Arrays[Key];
      if (T.Name.empty())
        T.Name = arrayName(M, K);
      if (!X.Executed)
        continue;
      bool InLoop = LI.getLoopFor(BB) != nullptr;
      ByteRange R{X.Lo, X.Hi, InLoop ? 1.0 : X.WarpDensity};
      ByteRange R64{X.Lo, X.Hi, InLoop ? 1.0 : X.WarpDensity64};
      if (Reads) {
        if (!T.HasLoads)
          T.FirstLoad = M.Loc;
        T.HasLoads = true;
        T.LoadRequested += Requested;
        T.AllLoadsStaged &= M.Kind == AccessKind::Load && feedsSharedStore(M.inst());
        T.ReadMoved += Moved;
        if (X.Known)
          T.ReadRanges.push_back(R64);
        else
          T.UnknownReadRequested += Requested;
      }
      if (Writes) {
        T.WriteMoved += Moved;
        if (M.Kind == AccessKind::Atomic)
          T.AtomicShare += Moved;
        if (X.Known)
          T.WriteRanges.push_back(R);
        else
          T.UnknownWriteRequested += Requested;
      }
    }

    std::optional<double> Threads = P.Threads;
    auto Total = [&](double PerThread) -> std::optional<double> {
      if (!Threads)
        return std::nullopt;
      return PerThread * *Threads;
    };

    // DRAM estimates per array, for the launch.
    double DramRead = 0, DramWrite = 0, AtomicWrite = 0;
    std::vector<ArrayTrafficFacts> ArrayList;
    std::vector<std::string> ReuseNotes;
    for (const Value *Key : ArrayOrder) {
      ArrayTraffic &T = Arrays[Key];
      // Data-dependent accesses alone: their requested bytes (each element touched once, as a
      // permutation or a gather over an array the size of the index space would).
      // DRAM reads come in 64-byte units (two sectors), so a read sector can cost 64 bytes.
      auto Estimate = [&](const std::vector<ByteRange> &Ranges, double Moved, double UnknownRequested,
                          double Unit) {
        double MovedLaunch = Total(Moved).value_or(0) * Unit;
        if (Ranges.empty())
          return std::min(Total(UnknownRequested).value_or(0), MovedLaunch);
        return std::min(footprintBytes(Ranges), MovedLaunch);
      };
      double Read = Estimate(T.ReadRanges, T.ReadMoved, T.UnknownReadRequested, 2.0);
      double Write = Estimate(T.WriteRanges, T.WriteMoved, T.UnknownWriteRequested, 1.0);
      DramRead += Read;
      DramWrite += Write;
      if (T.WriteMoved > 0)
        AtomicWrite += Write * (T.AtomicShare / T.WriteMoved);
      ArrayTrafficFacts O;
      if (!T.Name.empty())
        O.Array = T.Name;
      O.DramReadBytesEstimate = Threads ? WorkCount(rounded(Read)) : std::nullopt;
      O.DramWriteBytesEstimate = Threads ? WorkCount(rounded(Write)) : std::nullopt;
      O.RangeKnown = T.ReadRanges.size() + T.WriteRanges.size() > 0;
      if (T.HasLoads) {
        ArrayLoadFacts L;
        std::optional<double> Req = Total(T.LoadRequested);
        L.GlobalLoadBytes = optionalNumber(Req);
        if (Req && Read > 0)
          L.ReuseFactor = rounded(*Req / Read);
        L.StagedInShared = T.AllLoadsStaged;
        L.Line = T.FirstLoad.Line;
        L.Column = T.FirstLoad.Column;
        O.Loads = L;
      }
      ArrayList.push_back(std::move(O));
    }

    WorkFacts W;
    W.Threads = optionalNumber(Threads);
    WorkFlops &Flops = W.Flops;
    bool Known = !FlopsUnknown && Threads;
    auto LaunchValue = [&](double PerThread, bool IsKnown) -> WorkCount {
      return IsKnown ? optionalNumber(Total(PerThread)) : std::nullopt;
    };
    Flops.Total = LaunchValue(Ops.flops(), Known);
    Flops.PerThread = FlopsUnknown ? std::nullopt : WorkCount(rounded(Ops.flops()));
    for (unsigned Pr = 0; Pr < NumPrecisions; ++Pr) {
      if (Ops.flops(Pr) == 0 && Ops.Div[Pr] == 0 && Ops.Sqrt[Pr] == 0 && Ops.Special[Pr] == 0)
        continue;
      Flops.ByPrecision[precisionName(Pr)] = PrecisionFlops{
          LaunchValue(Ops.flops(Pr), Known),        LaunchValue(Ops.Add[Pr], Known),
          LaunchValue(Ops.Mul[Pr], Known),          LaunchValue(Ops.Fma[Pr], Known),
          LaunchValue(Ops.LibraryFlops[Pr], Known), LaunchValue(Ops.Div[Pr], Known),
          LaunchValue(Ops.Sqrt[Pr], Known),         LaunchValue(Ops.Special[Pr], Known)};
    }
    double Library = 0;
    for (unsigned Pr = 0; Pr < NumPrecisions; ++Pr)
      Library += Ops.LibraryFlops[Pr];
    Flops.Library = LaunchValue(Library, Known);
    if (!Ops.SpecialByName.empty()) {
      Flops.SpecialFunctions.emplace();
      for (const auto &[Name, N] : Ops.SpecialByName)
        (*Flops.SpecialFunctions)[Name] = LaunchValue(N, Known);
    }
    double Tensor = 0;
    std::map<std::string, WorkCount> TensorBy;
    for (unsigned T = 0; T < NumTensorTypes; ++T)
      if (Ops.TensorFlopsPerWarp[T] > 0) {
        Tensor += Ops.TensorFlopsPerWarp[T];
        TensorBy[tensorTypeName(T)] = LaunchValue(Ops.TensorFlopsPerWarp[T], Known);
      }
    Flops.Tensor = LaunchValue(Tensor, Known);
    if (Tensor > 0)
      Flops.TensorByType = std::move(TensorBy);
    if (FlopsUnknown) {
      std::string Expr = formatv("{0}", number(Ops.flops() - [&] {
                                   double S = 0;
                                   for (auto &[_, V] : UnknownTerms)
                                     S += V;
                                   return S;
                                 }()));
      for (const auto &[Trips, PerTrip] : UnknownTerms)
        Expr += formatv(" + {0} * {1}", number(PerTrip), Trips).str();
      Flops.PerThreadExpr = readableExpr(Expr, Facts.ParamNames);
    }

    std::map<std::string, WorkCount> &Sass = W.SassFpInstructions;
    static const char *SassNames[NumPrecisions][3] = {{"hadd", "hmul", "hfma"},
                                                      {"hadd_bf16", "hmul_bf16", "hfma_bf16"},
                                                      {"fadd", "fmul", "ffma"},
                                                      {"dadd", "dmul", "dfma"}};
    for (unsigned Pr = 0; Pr < NumPrecisions; ++Pr) {
      if (Ops.SassAdd[Pr] + Ops.SassMul[Pr] + Ops.SassFma[Pr] == 0)
        continue;
      Sass[SassNames[Pr][0]] = LaunchValue(Ops.SassAdd[Pr], Known);
      Sass[SassNames[Pr][1]] = LaunchValue(Ops.SassMul[Pr], Known);
      Sass[SassNames[Pr][2]] = LaunchValue(Ops.SassFma[Pr], Known);
    }
    W.IntOps = LaunchValue(Ops.IntOps, !P.UnknownTrip.size() && Threads);

    bool BytesKnown = !BytesUnknown && Threads;
    W.GlobalLoadBytes = LaunchValue(LoadRequested, BytesKnown);
    W.GlobalStoreBytes = LaunchValue(StoreRequested, BytesKnown);
    W.GlobalLoadSectors = LaunchValue(LoadSectors, BytesKnown && !SectorsUnknown);
    W.GlobalStoreSectors = LaunchValue(StoreSectors, BytesKnown && !SectorsUnknown);
    W.GlobalSectors = LaunchValue(LoadSectors + StoreSectors, BytesKnown && !SectorsUnknown);
    W.SharedBytes = LaunchValue(Shared, BytesKnown);
    auto IfBytesKnown = [&](double V) { return BytesKnown ? WorkCount(rounded(V)) : std::nullopt; };
    W.DramReadBytesEstimate = IfBytesKnown(DramRead);
    W.DramWriteBytesEstimate = IfBytesKnown(DramWrite);
    W.DramWriteBytesEstimateAtomic = IfBytesKnown(AtomicWrite);
    W.Arrays = std::move(ArrayList);

    if (Known && BytesKnown && DramRead + DramWrite > 0)
      W.ArithmeticIntensity =
          std::round(Total(Ops.flops() + Tensor).value_or(0) / (DramRead + DramWrite) * 1000) / 1000;
    if (Known && BytesKnown && Total(LoadSectors + StoreSectors).value_or(0) > 0)
      W.L2ArithmeticIntensity =
          std::round(Ops.flops() / ((LoadSectors + StoreSectors) * SectorBytes) * 1000) / 1000;

    std::optional<support::ComputeCapability> CC = support::parseArch(Ctx.options().Arch);
    const support::GpuDevice *Dev = CC ? support::defaultRooflineDevice(CC->major, CC->minor) : nullptr;
    // A device named with --gpu, where the table has its peaks.
    if (const support::GpuDevice *Named = support::findGpuDevice(Ctx.options().Gpu);
        Named && Named->roofline && CC && Named->major == CC->major && Named->minor == CC->minor)
      Dev = Named;
    if (Dev) {
      const support::RooflinePeaks &Peaks = *Dev->roofline;
      RooflineFacts R;
      R.Device = Dev->name;
      R.DramBytesPerSecond = rounded(Peaks.bandwidth());
      R.BandwidthSource = *Peaks.measuredSource ? "measured" : "datasheet";
      if (Known && BytesKnown) {
        support::RooflineInput In;
        for (unsigned Pr = 0; Pr < NumPrecisions; ++Pr)
          In.flops[Pr] = *Total(Ops.flops(Pr));
        for (unsigned T = 0; T < NumTensorTypes; ++T)
          In.tensorFlops[T] = *Total(Ops.TensorFlopsPerWarp[T]);
        In.dramBytes = DramRead + DramWrite;
        support::RooflineResult RR = support::rooflineTime(Peaks, In);
        W.RooflineTimeUs = std::round(RR.seconds() * 1e6 * 1000) / 1000;
        W.Bound = RR.bound();
        R.Times = RooflineTimes{std::round(RR.computeSeconds * 1e6 * 1000) / 1000,
                                std::round(RR.memorySeconds * 1e6 * 1000) / 1000,
                                std::round(Peaks.peak[FP32] / Peaks.bandwidth() * 100) / 100};
      }
      W.Roofline = std::move(R);
    }

    std::vector<LoopFacts> &Loops = W.Loops;
    for (const Loop *L : LI.getLoopsInPreorder()) {
      const BasicBlock *H = L->getHeader();
      SourceLocation Loc = sourceLocationOf(*H->getFirstNonPHIOrDbg());
      Loops.push_back(LoopFacts{Loc.Line, L->getLoopDepth(),
                                readableExpr(P.TripExpr.lookup(H), Facts.ParamNames),
                                !P.UnknownTrip.count(H)});
    }

    std::vector<std::string> &Notes = W.Notes;
    if (!Threads)
      Notes.push_back("grid unknown: per-launch totals need the grid (a constant launch site or "
                      "--launch); per-thread values use a representative grid");
    if (FlopsUnknown || BytesUnknown)
      Notes.push_back("a loop's trip count depends on unknown values: give them with --param "
                      "KERNEL:NAME=VALUE (see flops.per_thread_expr)");
    if (P.DataDependentBranches)
      Notes.push_back(formatv("{0} branch(es) depend on loaded data: both sides are counted "
                              "(upper bound)",
                              P.DataDependentBranches)
                          .str());
    if (P.MultiExitLoops)
      Notes.push_back("a loop with several exits: each exit is counted as taken by every lane "
                      "that entered the loop");
    if (Ops.UnknownSpecials)
      Notes.push_back("math functions without a cost table entry count 0 FLOP (listed in "
                      "flops.special_functions)");
    K.Work = std::move(W);
  }
};

} // namespace

std::unique_ptr<KernelAnalysis> createWorkAnalysis() { return std::make_unique<WorkAnalysis>(); }

} // namespace cudaperf
