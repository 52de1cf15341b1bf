//===- SharedWarHazardCheck.cpp - cuda-shared-war-hazard -------------------===//
//
// A loop reads shared memory that other threads wrote and writes it again in its next iteration
// with no __syncthreads() between the last read and the next write: a fast thread overwrites the
// tile while slower warps still read it (the tiled matmul without its second barrier). Facts from
// the synchronization analysis (sync.war_hazard_sites), decided on concrete thread indices.
//
//===----------------------------------------------------------------------===//
#include "BarrierChecks.h"
#include "cudaperf/Checks/Check.h"

namespace cudaperf {

namespace {
class SharedWarHazardCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-shared-war-hazard",
        "shared memory read in one loop iteration is overwritten in the next with no barrier",
        "Warps of a block run at different speeds: when a loop reads a shared tile and the next "
        "iteration writes the tile again with no __syncthreads() after the last read, a warp that "
        "finishes its reads early overwrites data other warps have not read yet (a write-after-"
        "read race). Put a barrier at the end of the loop body, or double-buffer the tile.",
        Severity::Warning};
    return I;
  }
  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    for (const WarHazardSite &Site : syncSites(K, &SyncFacts::WarHazardSites)) {
      const std::string &Reader = Site.ReaderThread;
      const std::string &Writer = Site.WriterThread;
      Out.push_back(make(K, siteLocation(K, Site),
                         "shared memory read here (by thread " + Reader +
                             ") is overwritten at line " + std::to_string(Site.Write.Line) + " by thread " +
                             Writer + " in the next iteration of the loop at line " +
                             std::to_string(Site.Loop.Line) +
                             " with no __syncthreads() between the read and the write; add "
                             "__syncthreads() at the end of the loop body (after the last read)"));
    }
  }
};
} // namespace

std::unique_ptr<Check> createSharedWarHazardCheck() { return std::make_unique<SharedWarHazardCheck>(); }

} // namespace cudaperf
