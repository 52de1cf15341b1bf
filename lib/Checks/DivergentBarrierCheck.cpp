//===- DivergentBarrierCheck.cpp - cuda-divergent-barrier -----------------===//
#include "BarrierChecks.h"
#include "cudaperf/Checks/Check.h"

namespace cudaperf {

namespace {
class DivergentBarrierCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-divergent-barrier",
        "__syncthreads() under a condition that differs between threads of a block",
        "A block-wide barrier must be reached by every thread of the block. Under a condition that "
        "depends on threadIdx, the lane or per-thread data, some threads skip it: the block "
        "deadlocks or the barrier stops ordering shared-memory accesses.",
        Severity::Error};
    return I;
  }
  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    for (const DivergentBarrierSite &Site : syncSites(K, &SyncFacts::DivergentBarrierSites)) {
      std::string Where = "a thread-dependent condition";
      if (Site.Condition && Site.Condition->Line > 0)
        Where = "the thread-dependent condition at line " + std::to_string(Site.Condition->Line);
      Out.push_back(make(K, siteLocation(K, Site),
                         "barrier is executed under " + Where +
                             ", so threads of a block can disagree on reaching it (deadlock or "
                             "unordered shared memory); compute the condition, synchronize "
                             "unconditionally, then branch"));
    }
  }
};
} // namespace

std::unique_ptr<Check> createDivergentBarrierCheck() { return std::make_unique<DivergentBarrierCheck>(); }

} // namespace cudaperf
