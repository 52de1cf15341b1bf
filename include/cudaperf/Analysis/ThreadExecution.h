//===- ThreadExecution.h - How often each basic block runs over a launch -*- C++ -*-===//
//
// Execution counts of a kernel's basic blocks over the whole launch, and the address extents of
// chosen memory instructions over the grid, from concrete evaluation of sampled warps
// (LaneAddress.h's evaluator):
//   - blocks of the grid: a lattice per grid dimension of at most 5 indices, always the first and
//     the last (where partial tiles and boundary guards are), the middle ones standing for the rest
//     by weight; warps of a block: every warp when there are at most 8, else 8 spread evenly with
//     the first and last; all lanes of each sampled warp;
//   - per sampled warp, a mask of active lanes flows through the CFG in reverse post-order:
//     conditional branches are evaluated per lane (guards like `if (i < n)` are exact); a condition
//     that depends on loaded data sends the lanes both ways (an upper bound, counted); loop exits
//     receive the lanes that entered the loop; conditions inside loops are evaluated at iteration 0,
//     except a guard on the counter of a loop that halves or doubles it (`if (t < s)` in a tree
//     reduction): when that loop runs a known count (at most 64), the same for every thread, the
//     warp is walked once per iteration with the counter at its value there (exact counts);
//   - a block inside loops runs (product of the enclosing loops' trip counts) times per lane; trip
//     counts come from ScalarEvolution's backedge-taken count evaluated per lane with the known
//     parameters and launch (inner counts that depend on an outer loop's variable use its first
//     iteration). A loop whose count cannot be evaluated counts once and is reported.
// The sums are divided by the sampled thread weight: results are averages per launched thread.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_THREADEXECUTION_H
#define CUDAPERF_ANALYSIS_THREADEXECUTION_H

#include "cudaperf/Analysis/LaneAddress.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class Function;
class Loop;
class LoopInfo;
class ScalarEvolution;
class Value;
} // namespace llvm

namespace cudaperf {

/// A memory instruction whose address extent over the grid is wanted.
struct TrackedAddress {
  const llvm::Value *Pointer = nullptr;
  const llvm::BasicBlock *Block = nullptr;
  unsigned Bytes = 0; // bytes from the address that one execution touches
};

/// Lowest and highest byte offset from the base pointer over every active lane and every loop
/// iteration (the corners of the iteration space; exact for addresses affine in the iteration).
struct AddressExtent {
  bool Executed = false; // some sampled lane reaches it
  bool Known = true;     // false: data-dependent, not evaluable, or an unknown trip count
  int64_t Lo = INT64_MAX;
  int64_t Hi = INT64_MIN; // one past the last byte
  /// Distinct 32-byte sectors one warp request touches / sectors its span covers, averaged over
  /// sampled warps; computed for one-dimensional blocks and grids only (elsewhere other warps
  /// fill the gaps between a warp's lanes), else 1.
  double WarpDensity = 1.0;
  /// The same at DRAM granularity: distinct 64-byte chunks a warp request touches / the chunks its
  /// span covers (the H200 reads DRAM in 64-byte units: measured on the corpus's strided loads).
  double WarpDensity64 = 1.0;
  /// The sectors one request of the lanes left active by the guards touches / the sectors it would
  /// touch with every lane of the warp, at the first iteration of the loops around it, averaged over
  /// the sampled warps that execute it (weighted by their warp-level executions). 1 where every
  /// executing warp is whole; below 1 where a guard idles lanes of some (the partial last warp behind
  /// `if (row < rows)`: 1 lane of 32 touches 1 sector instead of 32). Multiplies the coalescing
  /// analysis's sectors per request (full warps) into the launch's. Set when Known.
  double ActiveSectorShare = 1.0;
};

struct ExecutionProfile {
  std::optional<double> Threads; // launched threads; none when the grid is unknown
  /// Average executions per launched thread, and warp-level executions per launched thread.
  llvm::DenseMap<const llvm::BasicBlock *, double> PerThread, WarpsPerThread;
  /// Blocks inside a loop whose trip count is unknown (counted as one trip).
  llvm::DenseSet<const llvm::BasicBlock *> UnknownTrip;
  /// Trip-count expression of each loop (ScalarEvolution, "1 + (-1 + n)"), by header.
  llvm::DenseMap<const llvm::BasicBlock *, std::string> TripExpr;
  unsigned DataDependentBranches = 0; // distinct branches whose condition reads memory
  bool MultiExitLoops = false;
  std::vector<AddressExtent> Extents; // one per tracked address
};

/// Profiles \p F for the launch in \p Facts.
ExecutionProfile profileExecution(llvm::Function &F, llvm::ScalarEvolution &SE, llvm::LoopInfo &LI,
                                  const LaunchFacts &Facts,
                                  const std::vector<TrackedAddress> &Tracked = {});

/// Sampled indices of one grid or block dimension of size \p Size with their weights (sum = Size).
std::vector<std::pair<int64_t, double>> latticeSamples(int64_t Size, unsigned MaxSamples);

} // namespace cudaperf

#endif
