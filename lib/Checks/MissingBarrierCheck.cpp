//===- MissingBarrierCheck.cpp - cuda-missing-barrier ---------------------===//
#include "BarrierChecks.h"
#include "cudaperf/Checks/Check.h"

namespace cudaperf {

namespace {
class MissingBarrierCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-missing-barrier",
        "shared-memory read of another thread's write with no barrier between",
        "Threads of a block run in no fixed order: a thread that reads a shared-memory location "
        "another thread writes must be separated from that write by __syncthreads() (or "
        "__syncwarp() within a warp), or it may read the old value.",
        Severity::Warning};
    return I;
  }
  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    for (const MissingBarrierSite &Site : syncSites(K, &SyncFacts::MissingBarrierSites)) {
      std::string WriteLine = std::to_string(Site.Write.Line);
      const std::string &Reader = Site.ReaderThread;
      const std::string &Writer = Site.WriterThread;
      Out.push_back(make(K, siteLocation(K, Site),
                         "shared memory read here is written at line " + WriteLine +
                             " by another thread (thread " + Reader + " reads what thread " +
                             Writer + " writes) with no __syncthreads() on some path between "
                             "them; add a barrier after the write"));
    }
  }
};
} // namespace

std::unique_ptr<Check> createMissingBarrierCheck() { return std::make_unique<MissingBarrierCheck>(); }

} // namespace cudaperf
