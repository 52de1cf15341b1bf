//===- ThreadExecution.cpp - Execution counts over a launch by sampled warps ===//
#include "cudaperf/Analysis/ThreadExecution.h"
#include "cudaperf/Analysis/WarpRequests.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <map>
#include <set>

using namespace llvm;

namespace cudaperf {

std::vector<std::pair<int64_t, double>> latticeSamples(int64_t Size, unsigned MaxSamples) {
  std::vector<std::pair<int64_t, double>> Out;
  if (Size <= 0)
    return Out;
  if (Size <= int64_t(MaxSamples) || MaxSamples < 3) {
    for (int64_t I = 0; I < Size; ++I)
      Out.push_back({I, 1.0});
    return Out;
  }
  unsigned Middle = MaxSamples - 2;
  double W = double(Size - 2) / Middle;
  Out.push_back({0, 1.0});
  for (unsigned I = 1; I <= Middle; ++I)
    Out.push_back({1 + int64_t((Size - 2) * (I - 0.5) / Middle), W});
  Out.push_back({Size - 1, 1.0});
  return Out;
}

namespace {

constexpr Dim3 RepresentativeGrid{264, 4, 4}; // as LaneAddress.cpp assumes for an unknown grid
constexpr unsigned BadFlags = LaneUnknownParam | LaneUnsupported | LaneDataDependent;

// Replaces every add-recurrence by its value at a chosen iteration of its loop.
class IterationRewriter : public SCEVRewriteVisitor<IterationRewriter> {
public:
  IterationRewriter(ScalarEvolution &SE, const std::map<const Loop *, int64_t> &Iter)
      : SCEVRewriteVisitor(SE), Iter(Iter) {}

  const SCEV *visitAddRecExpr(const SCEVAddRecExpr *Expr) {
    SmallVector<const SCEV *, 4> Ops;
    for (const SCEV *Op : Expr->operands())
      Ops.push_back(visit(Op));
    auto It = Iter.find(Expr->getLoop());
    int64_t K = It == Iter.end() ? 0 : It->second;
    const SCEV *Rec = SE.getAddRecExpr(Ops, Expr->getLoop(), SCEV::FlagAnyWrap);
    if (const auto *AR = dyn_cast<SCEVAddRecExpr>(Rec))
      return AR->evaluateAtIteration(SE.getConstant(AR->getType(), K), SE);
    return Rec;
  }

private:
  const std::map<const Loop *, int64_t> &Iter;
};

struct Profiler {
  Function &F;
  ScalarEvolution &SE;
  LoopInfo &LI;
  LaneEvaluator E;
  const std::vector<TrackedAddress> &Tracked;
  std::vector<const BasicBlock *> Order;
  ExecutionProfile P;
  DenseMap<const BasicBlock *, double> ThreadSum, WarpSum;
  DenseSet<const Instruction *> DataDependentBranches;
  double SampledThreads = 0;
  std::vector<double> DensitySum, DensitySum64;
  std::vector<unsigned> DensityCount;
  std::vector<double> ShareSum, ShareWeight; // AddressExtent::ActiveSectorShare's sums
  double SampleWeight = 1.0;                 // the sampled warp's weight (runSample)

  // Density of warp requests applies to the whole array only when lanes, warps and blocks
  // continue one another along one dimension.
  bool OneDimensional = false;

  // Per sample.
  WarpSample Sample;
  DenseMap<const Loop *, SmallVector<int64_t, 32>> Trips; // -1: unknown
  DenseSet<const BasicBlock *> IterationGuarded; // counts depend on a guard evaluated at iteration 0
  const Loop *UnrolledLoop = nullptr;            // counted one iteration per pass (runSample)
  static constexpr int64_t MaxUnrolledIterations = 64;

  Profiler(Function &F, ScalarEvolution &SE, LoopInfo &LI, const LaunchFacts &Facts,
           const std::vector<TrackedAddress> &Tracked)
      : F(F), SE(SE), LI(LI), E(F, &SE, &LI, Facts), Tracked(Tracked) {
    ReversePostOrderTraversal<Function *> RPOT(&F);
    for (BasicBlock *BB : RPOT)
      Order.push_back(BB);
    P.Extents.resize(Tracked.size());
    DensitySum.assign(Tracked.size(), 0.0);
    DensitySum64.assign(Tracked.size(), 0.0);
    DensityCount.assign(Tracked.size(), 0);
    ShareSum.assign(Tracked.size(), 0.0);
    ShareWeight.assign(Tracked.size(), 0.0);
  }

  LaneValues evaluateFresh(const Value *V, unsigned &Flags) {
    E.setSample(Sample);
    E.resetFlags();
    LaneValues R = E.evaluate(V);
    Flags = E.flags();
    return R;
  }

  LaneValues evaluateFresh(const SCEV *S, unsigned &Flags) {
    E.setSample(Sample);
    E.resetFlags();
    LaneValues R = E.evaluate(S);
    Flags = E.flags();
    return R;
  }

  const SmallVector<int64_t, 32> &tripsOf(const Loop *L) {
    auto It = Trips.find(L);
    if (It != Trips.end())
      return It->second;
    std::string Expr;
    LaneValues T = evaluateLaneTripCounts(E, SE, L, Sample, Expr);
    P.TripExpr[L->getHeader()] = Expr.empty() ? "?" : Expr;
    return Trips[L] = T;
  }

  // Executions of \p BB per lane in one pass of the enclosing non-loop code; false when some
  // enclosing loop's count is unknown.
  bool tripProduct(const BasicBlock *BB, SmallVectorImpl<double> &Out) {
    Out.assign(Sample.Lanes.size(), 1.0);
    bool Known = true;
    for (const Loop *L = LI.getLoopFor(BB); L; L = L->getParentLoop()) {
      if (L == UnrolledLoop)
        continue; // one iteration per pass
      const auto &T = tripsOf(L);
      for (size_t I = 0; I < T.size(); ++I) {
        if (T[I] < 0)
          Known = false;
        else
          Out[I] *= double(T[I]);
      }
    }
    return Known;
  }

  uint32_t laneSet(const LaneValues &V, bool WantTrue) {
    uint32_t M = 0;
    for (size_t I = 0; I < V.size(); ++I)
      if ((V[I] != 0) == WantTrue)
        M |= 1u << I;
    return M;
  }

  // One pass of a sampled warp through the CFG. With \p Unrolled, the pass stands for one iteration
  // of that geometric loop, whose counter the evaluator holds at that iteration's value: its trip
  // count is 1 for the blocks inside, and only those are counted unless \p CountOutside.
  struct Pass {
    DenseMap<const BasicBlock *, double> Threads, Warp;
    DenseSet<const BasicBlock *> Unknown;
    DenseMap<const BasicBlock *, uint32_t> Mask;
    // The innermost loop of a guard on a counter that is not an affine recurrence (null: none; a
    // second such loop makes the pass give up on exact per-iteration counts).
    const Loop *GuardLoop = nullptr;
    bool SeveralGuardLoops = false;
  };

  Pass runPass(const Loop *Unrolled, bool CountOutside) {
    Pass R;
    Trips.clear();
    IterationGuarded.clear();
    UnrolledLoop = Unrolled;
    size_t N = Sample.Lanes.size();
    uint32_t Full = N >= 32 ? 0xffffffffu : ((1u << N) - 1);
    R.Mask[Order.front()] = Full;
    SmallVector<double, 32> Prod;
    for (const BasicBlock *BB : Order) {
      uint32_t M = R.Mask.lookup(BB);
      if (!M)
        continue;
      bool Counted = !Unrolled || CountOutside || Unrolled->contains(BB);
      if (Counted) {
        if (!tripProduct(BB, Prod) || IterationGuarded.count(BB))
          R.Unknown.insert(BB);
        double Threads = 0, Warp = 0;
        for (size_t I = 0; I < N; ++I)
          if (M & (1u << I)) {
            Threads += Prod[I];
            Warp = std::max(Warp, Prod[I]);
          }
        R.Threads[BB] += Threads;
        R.Warp[BB] += Warp;
      }

      const Instruction *T = BB->getTerminator();
      SmallVector<std::pair<const BasicBlock *, uint32_t>, 4> Out;
      if (const auto *Br = dyn_cast<BranchInst>(T); Br && Br->isConditional()) {
        unsigned Flags = 0;
        LaneValues C = evaluateFresh(Br->getCondition(), Flags);
        // A guard on a loop counter that is not an affine recurrence (`if (t < s)` in a loop that
        // halves s) is evaluated at the loop's first iteration here: what follows it is counted as
        // unknown, unless runSample counts the loop iteration by iteration.
        if ((Flags & LaneNonAffineRecurrence) || IterationGuarded.count(BB))
          if (const Loop *LB = LI.getLoopFor(BB)) {
            for (const BasicBlock *S : successors(BB))
              if (LB->contains(S) && S != LB->getHeader())
                IterationGuarded.insert(S);
            if (Flags & LaneNonAffineRecurrence) {
              if (R.GuardLoop && R.GuardLoop != LB)
                R.SeveralGuardLoops = true;
              R.GuardLoop = LB;
            }
          }
        if (Flags & (LaneDataDependent | LaneUnsupported)) {
          if (Flags & LaneDataDependent)
            DataDependentBranches.insert(Br);
          Out.push_back({Br->getSuccessor(0), M});
          Out.push_back({Br->getSuccessor(1), M});
        } else {
          Out.push_back({Br->getSuccessor(0), M & laneSet(C, true)});
          Out.push_back({Br->getSuccessor(1), M & laneSet(C, false)});
        }
      } else if (const auto *Sw = dyn_cast<SwitchInst>(T)) {
        unsigned Flags = 0;
        LaneValues C = evaluateFresh(Sw->getCondition(), Flags);
        bool Unknown = Flags & (LaneDataDependent | LaneUnsupported);
        if (Flags & LaneDataDependent)
          DataDependentBranches.insert(Sw);
        uint32_t Left = M;
        for (auto Case : Sw->cases()) {
          uint32_t Lanes = 0;
          for (size_t I = 0; I < N; ++I)
            if ((M & (1u << I)) && C[I] == Case.getCaseValue()->getSExtValue())
              Lanes |= 1u << I;
          Out.push_back({Case.getCaseSuccessor(), Unknown ? M : Lanes});
          Left &= ~Lanes;
        }
        Out.push_back({Sw->getDefaultDest(), Unknown ? M : Left});
      } else {
        for (const BasicBlock *S : successors(BB))
          Out.push_back({S, M});
      }

      const Loop *LB = LI.getLoopFor(BB);
      for (auto [S, Lanes] : Out) {
        const Loop *LS = LI.getLoopFor(S);
        if (LS && LS->getHeader() == S && LS->contains(BB))
          continue; // back edge: the trip count accounts for it
        if (LB && !LB->contains(S)) {
          // Leaving loops: every lane that entered the outermost loop left here.
          const Loop *Outer = LB;
          while (Outer->getParentLoop() && !Outer->getParentLoop()->contains(S))
            Outer = Outer->getParentLoop();
          if (!Outer->getUniqueExitBlock())
            P.MultiExitLoops = true;
          R.Mask[S] |= R.Mask.lookup(Outer->getHeader());
          continue;
        }
        R.Mask[S] |= Lanes;
      }
    }
    for (size_t A = 0; A < Tracked.size(); ++A)
      if (!Unrolled || CountOutside || Unrolled->contains(Tracked[A].Block))
        if (uint32_t M = R.Mask.lookup(Tracked[A].Block))
          trackAddress(A, M, R.Warp.lookup(Tracked[A].Block));
    UnrolledLoop = nullptr;
    return R;
  }

  void addPass(const Pass &R, double Weight) {
    for (auto &[BB, V] : R.Threads)
      ThreadSum[BB] += Weight * V;
    for (auto &[BB, V] : R.Warp)
      WarpSum[BB] += Weight * V;
    for (const BasicBlock *BB : R.Unknown)
      P.UnknownTrip.insert(BB);
  }

  void runSample(double Weight) {
    SampledThreads += Weight * Sample.Lanes.size();
    SampleWeight = Weight;
    Pass First = runPass(nullptr, true);
    // A guard on the counter of a loop that halves or doubles it (a tree reduction): when the loop
    // runs a known number of times, the same for every thread, the pass is repeated once per
    // iteration with the counter at that iteration's value, so the guarded blocks count exactly.
    if (First.GuardLoop && !First.SeveralGuardLoops && !First.Unknown.empty()) {
      E.clearOverrides();
      std::optional<GeometricCounter> G = geometricCounter(E, SE, First.GuardLoop, MaxUnrolledIterations);
      if (G) {
        std::vector<Pass> Passes;
        bool Exact = true;
        for (size_t K = 0; K < G->Values.size() && Exact; ++K) {
          E.overrideValue(G->Phi, G->Values[K]);
          Passes.push_back(runPass(First.GuardLoop, K == 0));
          Exact = Passes.back().GuardLoop == nullptr;
        }
        E.clearOverrides();
        if (Exact) {
          for (const Pass &R : Passes)
            addPass(R, Weight);
          return;
        }
        // Not exact after all: the first pass's counts (the guarded blocks as unknown) stand;
        // tracked extents of the iteration passes widen its own, which stay valid.
      }
    }
    addPass(First, Weight);
  }


  // \p WarpExecutions: the warp-level executions of the access's block in this pass (0: not counted
  // in this pass, e.g. outside the loop an iteration pass stands for).
  void trackAddress(size_t A, uint32_t M, double WarpExecutions) {
    const TrackedAddress &TA = Tracked[A];
    AddressExtent &X = P.Extents[A];
    X.Executed = true;
    if (!X.Known)
      return;
    const SCEV *S = SE.getSCEV(const_cast<Value *>(TA.Pointer));
    const SCEV *Base = SE.getPointerBase(S);
    const auto *BaseU = dyn_cast<SCEVUnknown>(Base);
    // A __device__ array is reached through an address-space cast of the global (a constant
    // expression), which ScalarEvolution keeps as the base: the global behind it is the array.
    const Value *BaseV = BaseU ? BaseU->getValue()->stripPointerCasts() : nullptr;
    if (!BaseV || !(isa<Argument>(BaseV) || isa<GlobalValue>(BaseV))) {
      X.Known = false;
      return;
    }
    const SCEV *Offset = SE.removePointerBase(S);
    std::vector<const Loop *> Loops;
    for (const Loop *L = LI.getLoopFor(TA.Block); L; L = L->getParentLoop())
      Loops.push_back(L);
    std::vector<int64_t> Last;
    for (const Loop *L : Loops) {
      int64_t Max = -1;
      const auto &T = tripsOf(L);
      for (size_t I = 0; I < T.size(); ++I)
        if (M & (1u << I)) {
          if (T[I] < 0) {
            X.Known = false;
            return;
          }
          Max = std::max(Max, T[I]);
        }
      Last.push_back(std::max<int64_t>(Max - 1, 0));
    }
    // Corners of the iteration space (all 2^d when d <= 4, else the two extreme ones).
    unsigned D = Loops.size();
    unsigned Corners = D <= 4 ? 1u << D : 2;
    for (unsigned C = 0; C < Corners; ++C) {
      std::map<const Loop *, int64_t> Iter;
      for (unsigned L = 0; L < D; ++L) {
        bool High = D <= 4 ? (C >> L) & 1 : C == 1;
        Iter[Loops[L]] = High ? Last[L] : 0;
      }
      IterationRewriter RW(SE, Iter);
      const SCEV *At = RW.visit(Offset);
      unsigned Flags = 0;
      LaneValues V = evaluateFresh(At, Flags);
      if (Flags & (BadFlags | LaneUnknownGrid)) {
        X.Known = false;
        return;
      }
      std::vector<int64_t> Addr;
      for (size_t I = 0; I < V.size(); ++I)
        if (M & (1u << I)) {
          X.Lo = std::min(X.Lo, V[I]);
          X.Hi = std::max(X.Hi, V[I] + int64_t(TA.Bytes));
          Addr.push_back(V[I]);
        }
      if (C == 0 && WarpExecutions > 0 && !Addr.empty()) {
        std::vector<int64_t> All(V.begin(), V.end());
        unsigned Whole = predictSectorsPerRequest(All, TA.Bytes);
        if (Whole > 0) {
          double W = SampleWeight * WarpExecutions;
          ShareSum[A] += W * double(predictSectorsPerRequest(Addr, TA.Bytes)) / double(Whole);
          ShareWeight[A] += W;
        }
      }
      if (C == 0 && Addr.size() > 1 && OneDimensional) {
        DensitySum[A] += chunkDensity(Addr, TA.Bytes, SectorBytes);
        DensitySum64[A] += chunkDensity(Addr, TA.Bytes, 2 * SectorBytes);
        ++DensityCount[A];
      }
    }
  }

  // Distinct Chunk-byte units the lanes touch / the units their span covers.
  static double chunkDensity(const std::vector<int64_t> &Addr, unsigned Bytes, int64_t Chunk) {
    std::set<int64_t> Touched;
    auto FloorDiv = [](int64_t A, int64_t B) { return A >= 0 ? A / B : -((-A + B - 1) / B); };
    for (int64_t A : Addr)
      for (int64_t C = FloorDiv(A, Chunk); C <= FloorDiv(A + Bytes - 1, Chunk); ++C)
        Touched.insert(C);
    int64_t Span = *Touched.rbegin() - *Touched.begin() + 1;
    return double(Touched.size()) / double(Span);
  }

  void run(const LaunchFacts &Facts) {
    Dim3 Grid = Facts.Grid ? *Facts.Grid : RepresentativeGrid;
    OneDimensional = Facts.Block.Y == 1 && Facts.Block.Z == 1 && Grid.Y == 1 && Grid.Z == 1;
    auto Warps = warpsOfBlock(Facts.Block);
    auto WarpSamples = latticeSamples(int64_t(Warps.size()), 8);
    for (auto [BX, WX] : latticeSamples(Grid.X, 5))
      for (auto [BY, WY] : latticeSamples(Grid.Y, 5))
        for (auto [BZ, WZ] : latticeSamples(Grid.Z, 3))
          for (auto [W, WW] : WarpSamples) {
            Sample = WarpSample();
            Sample.BlockIdx = {BX, BY, BZ};
            Sample.Lanes = Warps[W];
            runSample(WX * WY * WZ * WW);
          }
    if (Facts.Grid)
      P.Threads = double(Facts.Grid->count()) * double(Facts.Block.count());
    for (auto &[BB, S] : ThreadSum)
      P.PerThread[BB] = SampledThreads > 0 ? S / SampledThreads : 0;
    for (auto &[BB, S] : WarpSum)
      P.WarpsPerThread[BB] = SampledThreads > 0 ? S / SampledThreads : 0;
    P.DataDependentBranches = DataDependentBranches.size();
    for (size_t A = 0; A < Tracked.size(); ++A)
      if (DensityCount[A]) {
        P.Extents[A].WarpDensity = std::min(1.0, DensitySum[A] / DensityCount[A]);
        P.Extents[A].WarpDensity64 = std::min(1.0, DensitySum64[A] / DensityCount[A]);
      }
    for (size_t A = 0; A < Tracked.size(); ++A)
      if (P.Extents[A].Known && ShareWeight[A] > 0)
        P.Extents[A].ActiveSectorShare = std::min(1.0, ShareSum[A] / ShareWeight[A]);
  }
};

} // namespace

ExecutionProfile profileExecution(Function &F, ScalarEvolution &SE, LoopInfo &LI,
                                  const LaunchFacts &Facts,
                                  const std::vector<TrackedAddress> &Tracked) {
  Profiler Pr(F, SE, LI, Facts, Tracked);
  Pr.run(Facts);
  return std::move(Pr.P);
}

} // namespace cudaperf
