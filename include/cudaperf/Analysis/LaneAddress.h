//===- LaneAddress.h - Byte addresses of a warp's 32 lanes -----*- C++ -*-===//
//
// The per-lane address machinery shared by the coalescing (global memory) and shared-memory
// analyses. Approach: a concrete evaluator. For a chosen warp (block index, warp of the block,
// loop iteration) it computes the value of an IR expression for every active lane, with
//   threadIdx  = the lane's index in the block (x fastest, from the launch's block shape),
//   blockIdx   = the sample's block, blockDim = the launch's block,
//   gridDim    = the launch's grid, or a representative 264x4x4 when unknown,
//   kernel scalar parameters = their known value (launch site, --param), else a representative
//                value chosen by the caller (flagged, so the caller can try several),
//   pointer parameters and variables = distinct 256-byte aligned base addresses,
//   loop header phis = ScalarEvolution's recurrence evaluated at the sample's iteration k,
//   values loaded from memory = flagged data-dependent (a representative 0 or base),
// and integer semantics of the IR (wrapping at the value's width; sext/zext/trunc; udiv/sdiv,
// urem/srem, shifts, masks, selects, min/max). Evaluating instead of matching affine forms handles
// `%`, `/`, shifts and masks exactly whether or not the result is affine over the warp, and never
// guesses: what it cannot evaluate is flagged. Affine coefficients of threadIdx are then read off
// by differences (address(t+1) - address(t)) and checked against every lane.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_LANEADDRESS_H
#define CUDAPERF_ANALYSIS_LANEADDRESS_H

#include "cudaperf/Analysis/WarpRequests.h"
#include "cudaperf/Report/KernelReport.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class Function;
class Instruction;
class Loop;
class LoopInfo;
class PHINode;
class SCEV;
class ScalarEvolution;
class Value;
} // namespace llvm

namespace cudaperf {

/// Why an evaluated value is not a plain function of the thread index and known values.
enum LaneFlag : unsigned {
  LaneUsesThreadIdx = 1u << 0,
  LaneDataDependent = 1u << 1,   // depends on a value loaded from memory (or an atomic's result)
  LaneUnknownParam = 1u << 2,    // depends on a kernel parameter whose value is not known
  LaneUnknownGrid = 1u << 3,     // depends on gridDim, which the launch does not give
  LaneUnsupported = 1u << 4,     // something the evaluator cannot compute (float, call, ...)
  LaneUsesLoopIteration = 1u << 5,
  LaneNonAffineRecurrence = 1u << 6, // a loop phi that ScalarEvolution cannot describe: start value used
  LaneControlDependent = 1u << 7,    // a phi merging lane-varying values from different paths
};

/// Uniform facts for a kernel launch.
struct LaunchFacts {
  Dim3 Block{256, 1, 1};
  std::optional<Dim3> Grid;
  std::map<std::string, int64_t> KnownIntParams; // by parameter name
  std::vector<std::string> ParamNames;           // by IR argument number
};

/// The uniform facts of a kernel's resolved launch: block, grid, known integer parameters, and the
/// parameter names in IR argument order (when the AST and the IR agree on their number).
LaunchFacts launchFactsFor(const KernelReport &K, const llvm::Function &F);

/// One concrete warp: a block, its lanes' thread indices, an iteration number for every loop.
struct WarpSample {
  ThreadIndex BlockIdx;
  std::vector<ThreadIndex> Lanes; // active lanes in lane order (a partial warp has fewer)
  int64_t Iteration = 0;
  int64_t UnknownParamValue = 1024;
};

using LaneValues = llvm::SmallVector<int64_t, 32>;

class LaneEvaluator {
public:
  LaneEvaluator(llvm::Function &F, llvm::ScalarEvolution *SE, llvm::LoopInfo *LI, LaunchFacts Facts);

  /// Sets the warp that following evaluate() calls describe.
  void setSample(const WarpSample &S);
  /// The value of \p V for each active lane: integers sign-extended from their width, pointers as
  /// byte addresses (bases are distinct and 256-byte aligned).
  LaneValues evaluate(const llvm::Value *V);
  /// The value of a SCEV expression for each active lane.
  LaneValues evaluate(const llvm::SCEV *S);

  /// Fixes the value of \p V (a loop-header phi, the same for every lane) until clearOverrides():
  /// the counter of a geometric loop at a chosen iteration (ThreadExecution's per-iteration counts).
  void overrideValue(const llvm::Value *V, int64_t Value);
  void clearOverrides();

  unsigned flags() const { return Flags; }
  const std::set<std::string> &unknownParams() const { return UnknownParams; }
  void resetFlags() { Flags = 0; UnknownParams.clear(); }
  const LaunchFacts &facts() const { return Facts; }
  /// \p S as ScalarEvolution prints it, printed once: printing a value without a name numbers
  /// every value of the function, so printing per access and loop was quadratic in kernel size.
  const std::string &printed(const llvm::SCEV *S);

private:
  LaneValues evalValue(const llvm::Value *V);
  LaneValues evalInstruction(const llvm::Instruction *I);
  LaneValues evalPhi(const llvm::Instruction *Phi);
  LaneValues evalSCEVNode(const llvm::SCEV *S);
  LaneValues splat(int64_t V) const;
  int64_t baseAddressOf(const llvm::Value *V);

  llvm::Function &F;
  llvm::ScalarEvolution *SE;
  llvm::LoopInfo *LI;
  LaunchFacts Facts;
  WarpSample Sample;
  unsigned Flags = 0;
  std::set<std::string> UnknownParams;
  llvm::DenseMap<const llvm::Value *, LaneValues> Memo;
  llvm::DenseMap<const llvm::Value *, int64_t> Overrides;
  llvm::SmallPtrSet<const llvm::Value *, 16> InProgress;
  llvm::DenseMap<const llvm::Value *, int64_t> Bases;
  llvm::DenseMap<const llvm::SCEV *, std::string> Printed;
  /// Nesting of evalValue/evalSCEVNode; deeper chains are unknown rather than a stack overflow.
  static constexpr unsigned MaxEvaluationDepth = 1500;
  unsigned Depth = 0;
};

/// The lane addresses of one access in one sampled warp.
struct SampledWarp {
  WarpSample Sample;
  std::vector<int64_t> Addresses; // one per active lane, relative to nothing (absolute model bytes)
};

/// What the machinery found for one address.
struct LaneAddressSummary {
  unsigned Flags = 0;
  std::set<std::string> UnknownParams;
  /// Bytes per unit step of threadIdx.x/y/z; set when the address is affine in threadIdx over the
  /// sampled warps.
  std::optional<int64_t> CoefX, CoefY, CoefZ;
  bool Affine = false;
  std::vector<SampledWarp> Warps; // evaluated with the main representative parameter value
};

/// Which warps, blocks and iterations represent a launch (documented in LaneAddress.cpp).
std::vector<WarpSample> representativeWarps(const LaunchFacts &Facts, bool InLoop,
                                            int64_t UnknownParamValue);

/// Evaluates \p Ptr in every representative warp and derives the coefficients.
/// \p ByteOffset is added to every address (the pieces of a split vector access).
LaneAddressSummary summarizeLaneAddresses(LaneEvaluator &E, const llvm::Value *Ptr, bool InLoop,
                                          int64_t UnknownParamValue = 1024, int64_t ByteOffset = 0);

/// Trips of \p L for every lane of \p S (-1 where unknown): ScalarEvolution's backedge-taken
/// count evaluated with the known values; for a loop it cannot count, an affine counter compared
/// with a loop-invariant bound at the latch (grid- and block-stride loops), else a shifted,
/// multiplied or divided counter (evaluateGeometricTripCount, the same for every lane). \p Symbolic
/// receives the printed expression, if any. The one trip-count routine of the analyses.
LaneValues evaluateLaneTripCounts(LaneEvaluator &E, llvm::ScalarEvolution &SE, const llvm::Loop *L,
                                  const WarpSample &S, std::string &Symbolic);

/// evaluateLaneTripCounts for thread (0, 0, 0) of block 0; std::nullopt when unknown or when it
/// depends on unknown parameters (then \p Symbolic receives the printed expression, if any).
std::optional<int64_t> evaluateTripCount(LaneEvaluator &E, llvm::ScalarEvolution &SE,
                                         llvm::Loop *L, std::string &Symbolic);

/// How often one thread executes block \p BB: the product of the trip counts of the loops around it
/// (1 outside loops), or std::nullopt when one is unknown; \p Expr receives the product as
/// printed expressions ("?" for a loop with none).
std::optional<int64_t> executionsPerThread(LaneEvaluator &E, llvm::ScalarEvolution &SE,
                                           llvm::LoopInfo &LI, const llvm::BasicBlock *BB,
                                           std::string *Expr = nullptr);

/// Trip count of a loop whose counter is shifted, multiplied or divided by a constant each iteration
/// (`for (s = blockDim.x / 2; s > 0; s >>= 1)`), which ScalarEvolution cannot count, found by
/// simulating the counter; std::nullopt unless start and bound are known and the same for every
/// thread. evaluateLaneTripCounts uses it as a fallback.
std::optional<int64_t> evaluateGeometricTripCount(LaneEvaluator &E, llvm::ScalarEvolution &SE,
                                                  const llvm::Loop *L, std::string &Symbolic);

/// The counter of a geometric loop (evaluateGeometricTripCount) and its value at each iteration,
/// at most \p MaxIterations of them (std::nullopt when the loop runs longer or is not counted).
struct GeometricCounter {
  const llvm::PHINode *Phi = nullptr;
  std::vector<int64_t> Values; // the counter at iterations 0, 1, ... (one per trip)
};
std::optional<GeometricCounter> geometricCounter(LaneEvaluator &E, llvm::ScalarEvolution &SE,
                                                 const llvm::Loop *L, int64_t MaxIterations);

/// The base-free offset of \p Ptr as ScalarEvolution prints it (for reports).
std::string describeAddress(llvm::ScalarEvolution &SE, const llvm::Value *Ptr);

/// Names the thread/block index reads and the arguments of \p F after the source (threadIdx.x,
/// blockDim.y, parameter names) so that printed expressions read like the source, and the other
/// values v0, v1, ... in instruction order (so that printing one is cheap). Names only.
void nameSpecialValues(llvm::Function &F, const std::vector<std::string> &ParamNames);

} // namespace cudaperf

#endif
