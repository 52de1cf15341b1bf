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
    for (const llvm::json::Value &V : syncSites(K, "missing_barrier_sites")) {
      const llvm::json::Object *Site = V.getAsObject();
      if (!Site)
        continue;
      std::string WriteLine = "?";
      if (const llvm::json::Object *W = Site->getObject("write"))
        WriteLine = std::to_string(W->getInteger("line").value_or(0));
      std::string Reader = Site->getString("reader_thread").value_or("?").str();
      std::string Writer = Site->getString("writer_thread").value_or("?").str();
      Out.push_back(make(K, siteLocation(K, *Site),
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
