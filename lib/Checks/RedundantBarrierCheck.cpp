//===- RedundantBarrierCheck.cpp - cuda-redundant-barrier -----------------===//
#include "BarrierChecks.h"
#include "cudaperf/Checks/Check.h"

namespace cudaperf {

namespace {
class RedundantBarrierCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-redundant-barrier",
        "barrier with no memory access since the previous barrier",
        "A block-wide barrier makes every warp wait for the slowest one. When no shared or global "
        "memory access happens since the previous barrier (or the kernel's start) on any path, "
        "it orders nothing and only costs that wait.",
        Severity::Note};
    return I;
  }
  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    for (const SiteLocation &Site : syncSites(K, &SyncFacts::RedundantBarrierSites))
      Out.push_back(make(K, siteLocation(K, Site),
                         "barrier orders no memory access: none happens since the previous "
                         "barrier or the kernel's start on any path; remove it"));
  }
};
} // namespace

std::unique_ptr<Check> createRedundantBarrierCheck() { return std::make_unique<RedundantBarrierCheck>(); }

} // namespace cudaperf
