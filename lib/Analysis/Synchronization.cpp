//===- Synchronization.cpp - Barriers, warp primitives and atomics ---------===//
//
// Facts for the kernel's `sync` section (docs/json-schema.md) and for the barrier checks:
//  - every block-wide barrier (__syncthreads and its _count/_and/_or forms, bar.sync / barrier.sync
//    as intrinsics or inline PTX), whether it sits in a loop, how often each thread executes it
//    (loop trip counts when known), and whether it is executed under a thread-divergent condition
//    (Divergence.h) -- `divergent_barrier_sites`;
//  - shared-memory reads that can see another thread's write with no barrier between them on some
//    path -- `missing_barrier_sites`. Decided on concrete thread indices: the write's and the read's
//    byte addresses are evaluated for every thread of one block (LaneAddress.h) at loop iterations
//    k and k+1; a read of a byte another thread writes is a race. Data-dependent or unknown
//    addresses are not judged;
//  - barriers with no shared or global memory access since the previous barrier (or the kernel's
//    start) on every path -- `redundant_barrier_sites`;
//  - shared-memory writes that overwrite, in the loop's next iteration, what another thread read
//    in this one with no barrier between the read and the write on the path around the loop --
//    `war_hazard_sites` (the tiled matmul without its second __syncthreads()). Decided like the
//    missing barriers: the read's addresses at iteration k, the write's at k+1, every thread of
//    one block, lanes that a lane guard keeps out of the access left out (LaneGuards.h);
//  - warp-level primitives used, and atomics by space with a contention class: `same-address` (the
//    whole warp updates one address), `distinct-per-lane`, `data-dependent`; and per atomic site
//    (`atomic_sites`) how many active lanes of a warp and threads of a block update one address
//    and whether other blocks update it too (the serialization cuda-contended-atomic reports).
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/AnalysisContext.h"
#include "cudaperf/Analysis/Divergence.h"
#include "cudaperf/Analysis/LaneAddress.h"
#include "cudaperf/Analysis/LaneGuards.h"
#include "cudaperf/Analysis/MemoryAccesses.h"
#include "cudaperf/Analysis/WarpRequests.h"
#include "cudaperf/Analysis/WorkBudget.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include <algorithm>
#include <map>
#include <set>

using namespace llvm;

namespace cudaperf {

namespace {

/// Block-wide barrier: __syncthreads and barrier.sync / bar.sync with any id (clang 22:
/// llvm.nvvm.barrier.cta.sync.*), the reduction forms __syncthreads_count/and/or
/// (llvm.nvvm.barrier.cta.red.*), and the same written as inline PTX. barrier.cta.arrive does not
/// wait, and cluster barriers are not block barriers.
bool isBlockBarrier(const Instruction &I) {
  const auto *C = dyn_cast<CallBase>(&I);
  if (!C)
    return false;
  if (const auto *Asm = dyn_cast<InlineAsm>(C->getCalledOperand())) {
    StringRef S = Asm->getAsmString();
    return (S.contains("bar.sync") || S.contains("barrier.sync") || S.contains("bar.red") ||
            S.contains("barrier.red")) &&
           !S.contains("bar.warp");
  }
  const Function *F = C->getCalledFunction();
  if (!F)
    return false;
  StringRef N = F->getName();
  return N.starts_with("llvm.nvvm.barrier.cta.sync.") || N.starts_with("llvm.nvvm.barrier.cta.red.") ||
         N == "__syncthreads";
}

/// The warp-level primitive a call is, or "".
StringRef warpPrimitive(const Instruction &I) {
  const auto *C = dyn_cast<CallBase>(&I);
  const Function *F = C ? C->getCalledFunction() : nullptr;
  if (!F)
    return "";
  StringRef N = F->getName();
  if (N.starts_with("llvm.nvvm.shfl.sync")) return "shfl_sync";
  if (N.starts_with("llvm.nvvm.shfl.")) return "shfl";
  if (N.starts_with("llvm.nvvm.vote.ballot")) return "ballot_sync";
  if (N.starts_with("llvm.nvvm.vote.")) return "vote_sync";
  if (N == "llvm.nvvm.bar.warp.sync") return "syncwarp";
  if (N.starts_with("llvm.nvvm.match.")) return "match_sync";
  if (N.starts_with("llvm.nvvm.redux.sync")) return "reduce_sync";
  return "";
}

/// Memory traffic that a barrier orders: loads, stores and atomics outside the thread's own
/// allocas, and calls that may touch memory (not the NVVM special-register reads or barriers).
bool ordersMemory(const Instruction &I) {
  if (isBlockBarrier(I))
    return false;
  if (const auto *C = dyn_cast<CallBase>(&I)) {
    const Function *F = C->getCalledFunction();
    if (F && F->getName().starts_with("llvm.nvvm.") && !F->getName().starts_with("llvm.nvvm.ld") &&
        !F->getName().contains("atomic"))
      return false;
    if (F && F->getName().starts_with("llvm.") && C->onlyReadsMemory())
      return false;
    return C->mayReadOrWriteMemory();
  }
  const Value *Ptr = nullptr;
  if (const auto *L = dyn_cast<LoadInst>(&I)) Ptr = L->getPointerOperand();
  else if (const auto *S = dyn_cast<StoreInst>(&I)) Ptr = S->getPointerOperand();
  else if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I) || isa<FenceInst>(I)) return true;
  else return false;
  return !isa<AllocaInst>(getUnderlyingObject(Ptr));
}

/// Which instructions a thread can reach from just after a given one without passing a block-wide
/// barrier. Positions and first barriers of blocks are computed once per function; the blocks
/// reached from one instruction once per instruction, so that judging every write-read pair of an
/// unrolled kernel is not quadratic in its size.
class BarrierFreeReach {
public:
  explicit BarrierFreeReach(const Function &F) {
    for (const BasicBlock &BB : F) {
      unsigned Pos = 0;
      for (const Instruction &I : BB) {
        Position[&I] = Pos;
        if (isBlockBarrier(I))
          Barriers[&BB].push_back(Pos);
        ++Pos;
      }
    }
  }

  /// Is there a path from just after \p From to \p To that passes no block-wide barrier?
  bool reaches(const Instruction *From, const Instruction *To) {
    const BasicBlock *FromBB = From->getParent(), *ToBB = To->getParent();
    unsigned FromPos = Position.lookup(From), ToPos = Position.lookup(To);
    std::optional<unsigned> Next = firstBarrierAtOrAfter(FromBB, FromPos + 1);
    if (FromBB == ToBB && ToPos > FromPos)
      return !Next || *Next > ToPos;
    if (Next) // the rest of From's block ends at a barrier: no path leaves it
      return false;
    const DenseSet<const BasicBlock *> &Reached = blocksEnteredFrom(FromBB);
    std::optional<unsigned> First = firstBarrierAtOrAfter(ToBB, 0);
    return Reached.contains(ToBB) && (!First || *First > ToPos);
  }

  /// Is there a path from the start of \p BB to \p To that passes no block-wide barrier?
  bool reachesFromStart(const BasicBlock *BB, const Instruction *To) {
    const BasicBlock *ToBB = To->getParent();
    unsigned ToPos = Position.lookup(To);
    std::optional<unsigned> First = firstBarrierAtOrAfter(ToBB, 0);
    if (BB == ToBB)
      return !First || *First > ToPos;
    if (Barriers.count(BB))
      return false;
    return blocksEnteredFrom(BB).contains(ToBB) && (!First || *First > ToPos);
  }

private:
  std::optional<unsigned> firstBarrierAtOrAfter(const BasicBlock *BB, unsigned Pos) const {
    auto It = Barriers.find(BB);
    if (It == Barriers.end())
      return std::nullopt;
    auto B = std::lower_bound(It->second.begin(), It->second.end(), Pos);
    if (B == It->second.end())
      return std::nullopt;
    return *B;
  }

  /// The blocks entered (at their start) on barrier-free paths leaving \p BB at its end.
  const DenseSet<const BasicBlock *> &blocksEnteredFrom(const BasicBlock *BB) {
    auto [It, New] = Entered.try_emplace(BB);
    if (!New)
      return It->second;
    DenseSet<const BasicBlock *> &Seen = It->second;
    SmallVector<const BasicBlock *, 16> Work(succ_begin(BB), succ_end(BB));
    while (!Work.empty()) {
      const BasicBlock *B = Work.pop_back_val();
      if (!Seen.insert(B).second)
        continue;
      if (!Barriers.count(B))
        for (const BasicBlock *S : successors(B))
          Work.push_back(S);
    }
    return Seen;
  }

  DenseMap<const Instruction *, unsigned> Position;
  DenseMap<const BasicBlock *, SmallVector<unsigned, 2>> Barriers; // positions, ascending
  DenseMap<const BasicBlock *, DenseSet<const BasicBlock *>> Entered;
};

/// True when every backward path from \p Barrier reaches another barrier or the kernel's start
/// without a memory access on the way.
bool isRedundantBarrier(const Instruction *Barrier) {
  auto scanBack = [&](const BasicBlock *BB, const Instruction *Before, bool &Stopped) {
    // Instructions of BB strictly before `Before` (all of BB when Before is null), last first.
    auto It = Before ? Before->getReverseIterator() : BB->rbegin();
    if (Before)
      ++It;
    for (; It != BB->rend(); ++It) {
      if (isBlockBarrier(*It)) {
        Stopped = true;
        return false;
      }
      if (ordersMemory(*It))
        return true; // found traffic the barrier orders
    }
    return false;
  };
  bool Stopped = false;
  if (scanBack(Barrier->getParent(), Barrier, Stopped))
    return false;
  if (Stopped)
    return true;
  SmallVector<const BasicBlock *, 16> Work(pred_begin(Barrier->getParent()),
                                           pred_end(Barrier->getParent()));
  DenseSet<const BasicBlock *> Seen;
  while (!Work.empty()) {
    const BasicBlock *BB = Work.pop_back_val();
    if (!Seen.insert(BB).second)
      continue;
    bool S = false;
    if (scanBack(BB, nullptr, S))
      return false;
    if (!S)
      for (const BasicBlock *P : predecessors(BB))
        Work.push_back(P);
  }
  return true;
}

SiteLocation siteOf(const SourceLocation &L) { return SiteLocation{L.Line, L.Column}; }

constexpr unsigned UnjudgedFlags = LaneDataDependent | LaneUnsupported | LaneUnknownParam |
                                   LaneNonAffineRecurrence | LaneControlDependent;

/// Byte addresses of \p Ptr for every thread of block 0 at iteration \p Iteration, by linear thread
/// id; empty when the address cannot be judged.
std::vector<int64_t> blockAddresses(LaneEvaluator &E, const Value *Ptr, const Dim3 &Block,
                                    int64_t Iteration) {
  std::vector<int64_t> Out;
  E.resetFlags();
  for (const auto &Warp : warpsOfBlock(Block)) {
    WarpSample S;
    S.Lanes = Warp;
    S.Iteration = Iteration;
    E.setSample(S);
    LaneValues V = E.evaluate(Ptr);
    Out.insert(Out.end(), V.begin(), V.end());
  }
  if (E.flags() & UnjudgedFlags)
    return {};
  return Out;
}

/// A thread a lane guard keeps out of an access (blockAddressesOfActive).
constexpr int64_t InactiveThread = INT64_MIN;

/// blockAddresses of the access \p M in block \p BlockIdx, with InactiveThread for the threads
/// that a lane guard keeps out of it; empty when the address cannot be judged.
std::vector<int64_t> blockAddressesOfActive(LaneEvaluator &E, LaneGuards &G, const MemoryInstruction &M,
                                            const Dim3 &Block, int64_t Iteration,
                                            ThreadIndex BlockIdx = {}) {
  std::vector<int64_t> Out;
  E.resetFlags();
  std::vector<std::vector<bool>> Masks;
  for (const auto &Warp : warpsOfBlock(Block)) {
    WarpSample S;
    S.Lanes = Warp;
    S.Iteration = Iteration;
    S.BlockIdx = BlockIdx;
    E.setSample(S);
    LaneValues V = E.evaluate(M.Pointer);
    for (int64_t &A : V)
      A += M.Offset;
    Out.insert(Out.end(), V.begin(), V.end());
    Masks.push_back(G.activeLanes(M.inst()->getParent(), S));
  }
  if (E.flags() & UnjudgedFlags)
    return {};
  size_t T = 0;
  for (const std::vector<bool> &Mask : Masks)
    for (bool Active : Mask) {
      if (!Active && T < Out.size())
        Out[T] = InactiveThread;
      ++T;
    }
  return Out;
}

/// A shared-memory write in iteration k+1 of a loop over bytes another thread read in iteration k.
struct WarWitness {
  int64_t Reader = 0, Writer = 0;
};

std::optional<WarWitness> nextIterationOverwrite(LaneEvaluator &E, LaneGuards &G, const Dim3 &Block,
                                                 const MemoryInstruction &R,
                                                 const MemoryInstruction &W) {
  for (int64_t K = 0; K < 2; ++K) {
    std::vector<int64_t> RA = blockAddressesOfActive(E, G, R, Block, K);
    if (RA.empty())
      return std::nullopt;
    std::vector<int64_t> WA = blockAddressesOfActive(E, G, W, Block, K + 1);
    if (WA.empty())
      return std::nullopt;
    // Read byte -> two of its readers (the second -1 when one thread alone reads it).
    std::map<int64_t, std::pair<int64_t, int64_t>> Readers;
    for (size_t T = 0; T < RA.size(); ++T) {
      if (RA[T] == InactiveThread)
        continue;
      for (unsigned B = 0; B < R.Bytes; ++B) {
        auto [It, New] = Readers.insert({RA[T] + B, {int64_t(T), -1}});
        if (!New && It->second.first != int64_t(T) && It->second.second < 0)
          It->second.second = int64_t(T);
      }
    }
    for (size_t T = 0; T < WA.size(); ++T) {
      if (WA[T] == InactiveThread)
        continue;
      for (unsigned B = 0; B < W.Bytes; ++B) {
        auto It = Readers.find(WA[T] + B);
        if (It == Readers.end())
          continue;
        auto [First, Second] = It->second;
        int64_t Reader = First != int64_t(T) ? First : Second;
        if (Reader >= 0)
          return WarWitness{Reader, int64_t(T)};
      }
    }
  }
  return std::nullopt;
}

/// How one atomic's updates meet at addresses: per warp, per block and across blocks.
struct AtomicContention {
  int64_t LanesPerAddress = 0;         // most active lanes of one warp on one address
  int64_t ThreadsPerAddress = 0;       // most active threads of one block on one address
  bool SharedAcrossBlocks = false;     // another block updates an address of block 0
  bool AnyActive = false;
};

std::optional<AtomicContention> atomicContention(LaneEvaluator &E, LaneGuards &G,
                                                 const MemoryInstruction &A, const Dim3 &Block,
                                                 const std::optional<Dim3> &Grid) {
  std::vector<int64_t> B0 = blockAddressesOfActive(E, G, A, Block, 0);
  if (B0.empty())
    return std::nullopt;
  AtomicContention C;
  std::map<int64_t, int64_t> PerBlock;
  for (size_t W = 0; W < B0.size(); W += WarpSize) {
    std::map<int64_t, int64_t> PerWarp;
    for (size_t T = W; T < B0.size() && T < W + WarpSize; ++T)
      if (B0[T] != InactiveThread) {
        C.LanesPerAddress = std::max(C.LanesPerAddress, ++PerWarp[B0[T]]);
        C.ThreadsPerAddress = std::max(C.ThreadsPerAddress, ++PerBlock[B0[T]]);
        C.AnyActive = true;
      }
  }
  // Shared memory is the block's own: other blocks never meet its addresses.
  if (A.Space == MemorySpace::Shared)
    return C;
  // A second block: the next one along the first grid dimension that has one.
  ThreadIndex Other;
  Dim3 G3 = Grid.value_or(Dim3{264, 4, 4});
  if (G3.X > 1) Other.X = 1;
  else if (G3.Y > 1) Other.Y = 1;
  else if (G3.Z > 1) Other.Z = 1;
  else return C;
  std::vector<int64_t> B1 = blockAddressesOfActive(E, G, A, Block, 0, Other);
  for (int64_t Addr : B1)
    if (Addr != InactiveThread && PerBlock.count(Addr)) {
      C.SharedAcrossBlocks = true;
      break;
    }
  return C;
}

/// blockAddresses, each (pointer, iteration) evaluated once: the missing-barrier search asks for
/// the same write's addresses once per read.
class BlockAddressCache {
public:
  BlockAddressCache(LaneEvaluator &E, const Dim3 &Block) : E(E), Block(Block) {}
  const std::vector<int64_t> &get(const Value *Ptr, int64_t Iteration) {
    auto [It, New] = Cache.try_emplace({Ptr, Iteration});
    if (New)
      It->second = blockAddresses(E, Ptr, Block, Iteration);
    return It->second;
  }
  const Dim3 &block() const { return Block; }

private:
  LaneEvaluator &E;
  Dim3 Block;
  std::map<std::pair<const Value *, int64_t>, std::vector<int64_t>> Cache;
};

/// A shared-memory read that may see another thread's write without a barrier between.
struct RaceWitness {
  int64_t Reader = 0, Writer = 0;
};

std::optional<RaceWitness> crossThreadOverlap(BlockAddressCache &Addresses, const MemoryInstruction &W,
                                              const MemoryInstruction &R) {
  for (int64_t KW = 0; KW < 2; ++KW) {
    const std::vector<int64_t> &WA = Addresses.get(W.Pointer, KW);
    if (WA.empty())
      return std::nullopt;
    // Written byte -> two of its writers (the second -1 when one thread alone writes it).
    std::map<int64_t, std::pair<int64_t, int64_t>> Writers;
    for (size_t T = 0; T < WA.size(); ++T)
      for (unsigned B = 0; B < W.Bytes; ++B) {
        auto [It, New] = Writers.insert({WA[T] + B, {int64_t(T), -1}});
        if (!New && It->second.first != int64_t(T) && It->second.second < 0)
          It->second.second = int64_t(T);
      }
    for (int64_t KR = KW; KR < KW + 2; ++KR) {
      const std::vector<int64_t> &RA = Addresses.get(R.Pointer, KR);
      if (RA.empty())
        return std::nullopt;
      for (size_t T = 0; T < RA.size(); ++T)
        for (unsigned B = 0; B < R.Bytes; ++B) {
          auto It = Writers.find(RA[T] + B);
          if (It == Writers.end())
            continue;
          auto [First, Second] = It->second;
          int64_t Writer = First != int64_t(T) ? First : Second; // a writer other than the reader
          if (Writer >= 0)
            return RaceWitness{int64_t(T), Writer};
        }
    }
  }
  return std::nullopt;
}

std::string threadName(int64_t Linear, const Dim3 &Block) {
  int64_t X = Linear % Block.X, Y = (Linear / Block.X) % Block.Y, Z = Linear / (Block.X * Block.Y);
  std::string S = "(" + std::to_string(X);
  if (Block.Y > 1 || Block.Z > 1)
    S += "," + std::to_string(Y);
  if (Block.Z > 1)
    S += "," + std::to_string(Z);
  return S + ")";
}

class SynchronizationAnalysis : public KernelAnalysis {
  static constexpr unsigned MaxCopiesPerSitePair = 16;

public:
  StringRef name() const override { return "synchronization"; }

  void run(AnalysisContext &Ctx, Function *F, KernelReport &K) override {
    if (!F)
      return;
    FunctionAnalysisManager &FAM = Ctx.functionAnalyses();
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(*F);
    PostDominatorTree &PDT = FAM.getResult<PostDominatorTreeAnalysis>(*F);
    ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(*F);
    DivergenceInfo DI(*F, PDT, LI);
    LaneEvaluator E(*F, &SE, &LI, launchFactsFor(K, *F));
    LaneGuards Guards(*F, FAM.getResult<DominatorTreeAnalysis>(*F), &SE, &LI, launchFactsFor(K, *F));

    SyncFacts S;
    int64_t Barriers = 0, InLoops = 0;
    std::optional<int64_t> PerThread = 0;
    std::string PerThreadNote;
    std::set<std::string> Primitives;
    for (Instruction &I : instructions(*F)) {
      if (StringRef P = warpPrimitive(I); !P.empty())
        Primitives.insert(P.str());
      if (!isBlockBarrier(I))
        continue;
      ++Barriers;
      SourceLocation Loc = sourceLocationOf(I);
      BarrierSite Site;
      Site.Line = Loc.Line;
      Site.Column = Loc.Column;
      // Executions per thread: product of the enclosing loops' trip counts.
      std::string Expr;
      std::optional<int64_t> Executions = executionsPerThread(E, SE, LI, I.getParent(), &Expr);
      if (!Executions && PerThreadNote.empty())
        PerThreadNote = "executions per thread " + Expr;
      if (LI.getLoopFor(I.getParent()))
        ++InLoops;
      Site.InLoop = LI.getLoopFor(I.getParent()) != nullptr;
      Site.ExecutionsPerThread = Executions;
      if (PerThread && Executions)
        *PerThread += *Executions;
      else
        PerThread.reset();
      if (DI.isDivergentlyExecuted(I.getParent())) {
        DivergentBarrierSite D{Loc.Line, Loc.Column, std::nullopt};
        if (const BasicBlock *Cause = DI.divergentCause(I.getParent()))
          D.Condition = siteOf(sourceLocationOf(*Cause->getTerminator()));
        S.DivergentBarrierSites.push_back(D);
        Site.Divergent = true;
      }
      if (isRedundantBarrier(&I)) {
        S.RedundantBarrierSites.push_back(siteOf(Loc));
        Site.Redundant = true;
      }
      S.BarrierSites.push_back(Site);
    }

    // Missing barriers between shared-memory writes and reads of other threads' data. Unrolled
    // loops and inlined calls make many copies of one source write and read; at most
    // MaxCopiesPerSitePair pairs of copies are judged per pair of source locations.
    const MemoryInventory &Inv = Ctx.memoryAccesses(*F);
    BarrierFreeReach Reach(*F);
    BlockAddressCache Addresses(E, K.Launch.Block);
    std::set<std::pair<unsigned, unsigned>> Reported;
    std::map<std::pair<unsigned, unsigned>, unsigned> Judged;
    unsigned Unjudged = 0;
    bool OutOfBudget = false;
    for (const MemoryInstruction &W : Inv.Accesses) {
      if (W.Space != MemorySpace::Shared || W.Kind == AccessKind::Load)
        continue;
      for (const MemoryInstruction &R : Inv.Accesses) {
        if (R.Space != MemorySpace::Shared || R.Kind != AccessKind::Load ||
            R.BaseValue != W.BaseValue)
          continue;
        auto Key = std::make_pair(R.Loc.Line * 1000 + R.Loc.Column, W.Loc.Line * 1000 + W.Loc.Column);
        if (Reported.count(Key) || !Reach.reaches(W.inst(), R.inst()))
          continue;
        if (++Judged[Key] > MaxCopiesPerSitePair || OutOfBudget ||
            (OutOfBudget = !spendWork(K.Launch.Block.count()))) {
          ++Unjudged;
          continue;
        }
        std::optional<RaceWitness> Race = crossThreadOverlap(Addresses, W, R);
        if (!Race)
          continue;
        Reported.insert(Key);
        S.MissingBarrierSites.push_back({R.Loc.Line, R.Loc.Column, siteOf(W.Loc),
                                         threadName(Race->Reader, K.Launch.Block),
                                         threadName(Race->Writer, K.Launch.Block)});
      }
    }

    if (Unjudged)
      K.Notes.push_back("missing-barrier search: " + std::to_string(Unjudged) +
                        " shared write-read pairs not judged (" +
                        (OutOfBudget ? std::string("analysis budget exhausted")
                                     : "more than " + std::to_string(MaxCopiesPerSitePair) +
                                           " unrolled or inlined copies of one pair of source "
                                           "locations") +
                        ")");

    // Write-after-read across loop iterations: a read, then (around the loop's back edge, with
    // no barrier on the way) a write of the same shared array in the next iteration.
    std::set<std::pair<unsigned, unsigned>> WarReported;
    std::map<std::pair<unsigned, unsigned>, unsigned> WarJudged;
    unsigned WarUnjudged = 0;
    for (const MemoryInstruction &R : Inv.Accesses) {
      if (R.Space != MemorySpace::Shared || R.Kind != AccessKind::Load)
        continue;
      for (const MemoryInstruction &W : Inv.Accesses) {
        if (W.Space != MemorySpace::Shared || W.Kind == AccessKind::Load || W.BaseValue != R.BaseValue)
          continue;
        Loop *L = LI.getLoopFor(R.inst()->getParent());
        while (L && !L->contains(W.inst()->getParent()))
          L = L->getParentLoop();
        if (!L)
          continue;
        auto Key = std::make_pair(R.Loc.Line * 1000 + R.Loc.Column, W.Loc.Line * 1000 + W.Loc.Column);
        if (WarReported.count(Key))
          continue;
        SmallVector<BasicBlock *, 2> Latches;
        L->getLoopLatches(Latches);
        bool AroundLoop = false;
        for (BasicBlock *Latch : Latches)
          AroundLoop |= Reach.reaches(R.inst(), Latch->getTerminator()) &&
                        Reach.reachesFromStart(L->getHeader(), W.inst());
        if (!AroundLoop)
          continue;
        if (++WarJudged[Key] > MaxCopiesPerSitePair || OutOfBudget ||
            (OutOfBudget = !spendWork(4 * K.Launch.Block.count()))) {
          ++WarUnjudged;
          continue;
        }
        std::optional<WarWitness> Hazard = nextIterationOverwrite(E, Guards, K.Launch.Block, R, W);
        if (!Hazard)
          continue;
        WarReported.insert(Key);
        SourceLocation LoopLoc = sourceLocationOf(*L->getHeader()->getFirstNonPHIOrDbg());
        if (DebugLoc Start = L->getStartLoc()) // the `for`/`while` itself, from the loop metadata
          LoopLoc.Line = Start.getLine(), LoopLoc.Column = Start.getCol();
        S.WarHazardSites.push_back({R.Loc.Line, R.Loc.Column, siteOf(W.Loc), siteOf(LoopLoc),
                                    threadName(Hazard->Reader, K.Launch.Block),
                                    threadName(Hazard->Writer, K.Launch.Block)});
      }
    }
    if (WarUnjudged)
      K.Notes.push_back("write-after-read search: " + std::to_string(WarUnjudged) +
                        " shared read-write pairs not judged (" +
                        (OutOfBudget ? std::string("analysis budget exhausted")
                                     : "more than " + std::to_string(MaxCopiesPerSitePair) +
                                           " unrolled or inlined copies of one pair of source "
                                           "locations") +
                        ")");

    // Atomics by space and contention.
    for (const MemoryInstruction &A : Inv.Accesses) {
      if (A.Kind != AccessKind::Atomic)
        continue;
      if (K.Launch.Block.count() && !OutOfBudget && (OutOfBudget = !spendWork(2 * K.Launch.Block.count())) == false) {
        if (std::optional<AtomicContention> C =
                atomicContention(E, Guards, A, K.Launch.Block, K.Launch.Grid);
            C && C->AnyActive) {
          AtomicSite Site;
          Site.Line = A.Loc.Line;
          Site.Column = A.Loc.Column;
          Site.Space = toString(A.Space);
          Site.LanesPerAddress = C->LanesPerAddress;
          Site.ThreadsPerAddress = C->ThreadsPerAddress;
          Site.SharedAcrossBlocks = C->SharedAcrossBlocks;
          // nvcc aggregates an integer add/and/or/xor/min/max whose address is one for the whole
          // warp into one update per warp (warp-aggregated atomics, since CUDA 9); floating-point
          // adds are not reassociated.
          if (const auto *RMW = dyn_cast<AtomicRMWInst>(A.inst()))
            if (RMW->getType()->isIntegerTy() && !RMW->isFloatingPointOperation() &&
                RMW->getOperation() != AtomicRMWInst::Xchg && C->LanesPerAddress > 1)
              Site.CompilerAggregatesWarp = true;
          std::optional<int64_t> Exec = executionsPerThread(E, SE, LI, A.inst()->getParent());
          if (Exec)
            Site.ExecutionsPerThread = *Exec * A.Count;
          if (K.Launch.Grid)
            Site.GridBlocks = K.Launch.Grid->count();
          S.AtomicSites.push_back(std::move(Site));
        }
      }
      std::string Class;
      std::vector<int64_t> Addr;
      if (!K.Launch.Block.count() || (Addr = blockAddresses(E, A.Pointer, K.Launch.Block, 0)).empty()) {
        Class = (E.flags() & LaneDataDependent) ? "data-dependent" : "unknown";
      } else {
        size_t N = std::min<size_t>(Addr.size(), WarpSize);
        std::set<int64_t> Distinct(Addr.begin(), Addr.begin() + N);
        Class = Distinct.size() == 1 ? "same-address"
                : Distinct.size() == N ? "distinct-per-lane"
                                       : "partly-shared";
      }
      ++S.Atomics[toString(A.Space)][Class];
    }

    S.Barriers = Barriers;
    S.BarriersInLoops = InLoops;
    S.BarriersPerThread = PerThread;
    if (!PerThread && !PerThreadNote.empty())
      S.BarriersPerThreadNote = PerThreadNote;
    S.DivergentBarriers = static_cast<int64_t>(S.DivergentBarrierSites.size());
    S.WarpPrimitives.assign(Primitives.begin(), Primitives.end());
    K.Sync = std::move(S);
  }
};

} // namespace

std::unique_ptr<KernelAnalysis> createSynchronizationAnalysis() {
  return std::make_unique<SynchronizationAnalysis>();
}

} // namespace cudaperf
