//===- ContendedAtomicCheck.cpp - cuda-contended-atomic --------------------===//
//
// An atomic whose active lanes meet at few addresses: the updates to one address are serialized
// (the L2's atomic unit for global memory, the shared-memory atomic unit per SM), so every thread
// atomicAdd-ing one address runs one update after another instead of in parallel. Facts from the
// synchronization analysis (sync.atomic_sites): most lanes of one warp on one address, most
// threads of one block on one address, whether other blocks update the same addresses.
//
// Fires when at least MinLanesPerAddress lanes of a warp update one address, or a block sends at
// least a warp's worth of updates to one address. One update per block (a block-level reduction
// followed by one atomic) stays silent: that is the remedy. Integer atomics on one address per warp
// are counted after nvcc's warp aggregation (one update per warp): a work queue's
// atomicAdd(counter, 1) from blocks of a few warps stays silent.
//
// Estimated saving (global atomics with a known grid): the serialized updates to one address per
// launch, minus the one per block a block-level reduction leaves, at SameAddressUpdatesPerUs.
//
//===----------------------------------------------------------------------===//
#include "BarrierChecks.h"
#include "cudaperf/Checks/Check.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

namespace cudaperf {

namespace {

constexpr int64_t MinLanesPerAddress = 8;
constexpr int64_t MinThreadsPerAddress = 32;
/// Same-address atomic updates per microsecond: about one per L2 clock (~1.7 GHz on H100/H200),
/// rounded down to 1000 (docs/checks/cuda-contended-atomic.md). An order of magnitude, for
/// ordering findings; not a measurement.
constexpr double SameAddressUpdatesPerUs = 1000.0;

class ContendedAtomicCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-contended-atomic",
        "many lanes or blocks update few addresses with atomics, which serialize",
        "Atomic updates of one address are performed one after another. When every thread adds "
        "into one address (a per-element atomicAdd into a scalar), a warp's 32 updates and every "
        "block's updates queue on it, and the kernel runs at the speed of one memory location. "
        "Reduce within the warp (__shfl_down_sync) and the block (shared memory) first, then "
        "issue one atomic per block.",
        Severity::Warning};
    return I;
  }

  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    for (const AtomicSite &S : syncSites(K, &SyncFacts::AtomicSites)) {
      int64_t Lanes = S.LanesPerAddress;
      int64_t Threads = S.ThreadsPerAddress;
      // Integer updates of one warp-wide address are combined by the compiler into one per warp.
      bool Aggregated = S.CompilerAggregatesWarp;
      if (Aggregated) {
        Threads = (Threads + Lanes - 1) / std::max<int64_t>(1, Lanes);
        Lanes = 1;
      }
      if (Lanes < MinLanesPerAddress && Threads < MinThreadsPerAddress)
        continue;
      bool AcrossBlocks = S.SharedAcrossBlocks;
      std::optional<int64_t> Grid = S.GridBlocks;
      std::optional<int64_t> Exec = S.ExecutionsPerThread;
      const std::string &Space = S.Space;

      std::string Msg;
      llvm::raw_string_ostream OS(Msg);
      OS << Space << " atomic: " << (Aggregated ? "after the compiler's per-warp aggregation, " : "") << Lanes << " lane" << (Lanes == 1 ? "" : "s")
         << " of a warp update one address (" << Lanes << " serialized updates per warp request)"
         << ", " << Threads << " thread" << (Threads == 1 ? "" : "s") << " of a block";
      std::optional<double> Updates;
      if (AcrossBlocks) {
        OS << ", and every block";
        if (Grid)
          OS << " (" << *Grid << " blocks)";
        OS << " updates the same address";
        if (Grid && Exec) {
          Updates = double(Threads) * double(*Exec) * double(*Grid);
          OS << ": " << llvm::format("%.0f", *Updates) << " serialized updates per launch";
        }
      } else if (Exec && Space == "global") {
        Updates = double(Threads) * double(*Exec);
        OS << ": " << llvm::format("%.0f", *Updates) << " serialized updates per address per block";
      }
      OS << "; reduce within the warp (__shfl_down_sync) and the block (shared memory) first and "
            "issue one atomic per "
         << (Space == "shared" ? "warp" : "block") << " (a privatized copy per block for a histogram)";
      Diagnostic D = make(K, siteLocation(K, S), Msg);
      if (Updates && Space == "global") {
        double Blocks = AcrossBlocks && Grid ? double(*Grid) : 1.0;
        D.EstimatedSavingUs = std::max(0.0, (*Updates - Blocks) / SameAddressUpdatesPerUs);
      }
      Out.push_back(std::move(D));
    }
  }
};

} // namespace

std::unique_ptr<Check> createContendedAtomicCheck() { return std::make_unique<ContendedAtomicCheck>(); }

} // namespace cudaperf
