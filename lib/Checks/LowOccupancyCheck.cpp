//===- LowOccupancyCheck.cpp - cuda-low-occupancy ----------------------------------------===//
//
// Theoretical occupancy under 50%: too few warps per SM to hide memory and arithmetic latency.
// Names the limiter and the one change that raises occupancy a step (the Occupancy analysis'
// "raise"). A block that cannot launch at all is reported too, as an error.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace cudaperf {

namespace {

constexpr double Threshold = 0.5;

llvm::StringRef describeLimiter(llvm::StringRef L) {
  if (L == "shared-memory")
    return "shared memory";
  if (L == "warps")
    return "warp slots";
  if (L == "blocks")
    return "the resident-block limit";
  return L; // registers, barriers
}

class LowOccupancyCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-low-occupancy",
        "Theoretical occupancy below 50% of the SM's warp slots",
        "Each SM hides the latency of memory and long arithmetic by switching among resident "
        "warps. When registers, shared memory, barriers or the block shape let fewer than half of "
        "the warp slots fill, memory-bound kernels usually lose bandwidth. The message names the "
        "limiting resource and the change that lets one more block reside.",
        Severity::Warning};
    return I;
  }

  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    if (!K.Occupancy || K.Occupancy->Theoretical >= Threshold)
      return;
    const OccupancyFacts &O = *K.Occupancy;
    std::string Msg;
    llvm::raw_string_ostream OS(Msg);
    std::string Shape = "blocks of " + std::to_string(O.BlockSize) + " threads" +
                        (O.LaunchOrigin == "assumed" ? " (assumed; no launch was found)" : "");
    if (O.ActiveBlocksPerSM == 0) {
      OS << "kernel '" << K.Name << "' cannot launch with " << Shape << " on " << O.Arch << ": "
         << O.Problem;
      Diagnostic D = make(K, K.Loc, Msg);
      D.Level = Severity::Error;
      Out.push_back(std::move(D));
      return;
    }
    OS << "theoretical occupancy of '" << K.Name << "' is "
       << llvm::format("%.0f%%", O.Theoretical * 100) << " (" << O.ActiveWarpsPerSM << " of "
       << O.MaxWarpsPerSM << " warps per SM on " << O.Arch << ", " << Shape << "), limited by "
       << describeLimiter(O.Limiter);
    if (O.Raise)
      OS << ": " << O.Raise->Text;
    Out.push_back(make(K, K.Loc, Msg));
  }
};

} // namespace

std::unique_ptr<Check> createLowOccupancyCheck() { return std::make_unique<LowOccupancyCheck>(); }

} // namespace cudaperf
