//===- UnknownAccessCheck.cpp - cudaperf-unknown-access --------------------===//
//
// What the analysis could not follow: memory accesses whose lane addresses the evaluator could not
// compute (pattern `unknown`: a loop counter multiplied or shifted each iteration, an operation it
// does not model). Their sectors and bank conflicts are not judged, so a kernel without findings
// is not a kernel without problems. One note per kernel names the first such access, the loop it
// sits in and why, and counts the others; silent when every access was followed.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"
#include <set>

namespace cudaperf {

namespace {
class UnknownAccessCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cudaperf-unknown-access",
        "memory accesses the analysis could not follow lane by lane",
        "cudaperf evaluates every access's address for the lanes of sampled warps. Where it meets "
        "something it cannot compute, the access is reported as `unknown` and no check judges its "
        "coalescing or bank conflicts; this note says where and why, so that silence is not read "
        "as a clean bill.",
        Severity::Note};
    return I;
  }

  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    const MemoryAccess *First = nullptr;
    std::set<std::pair<unsigned, unsigned>> Sites;
    for (const MemoryAccess &A : K.Accesses)
      if (A.Pattern == "unknown" && Sites.insert({A.Loc.Line, A.Loc.Column}).second && !First)
        First = &A;
    if (!First)
      return;
    std::string Msg = "the analysis could not follow " + std::to_string(Sites.size()) +
                      " memory access" + (Sites.size() == 1 ? "" : "es") + " of '" + K.Name +
                      "': the " + First->Space + " " + First->Op + " here";
    if (First->UnknownLoopLine)
      Msg += " in the loop at line " + std::to_string(*First->UnknownLoopLine);
    Msg += " (" + First->UnknownReason.value_or("the sampled lanes gave no address") + ")";
    if (Sites.size() > 1) {
      Msg += "; also at line";
      Msg += Sites.size() > 2 ? "s" : "";
      unsigned N = 0;
      for (const auto &[Line, Col] : Sites) {
        if (Line == First->Loc.Line && Col == First->Loc.Column)
          continue;
        if (++N > 4) {
          Msg += ", ...";
          break;
        }
        Msg += (N > 1 ? ", " : " ") + std::to_string(Line) + ":" + std::to_string(Col);
      }
    }
    Msg += "; their coalescing and bank conflicts are not judged";
    Out.push_back(make(K, First->Loc, Msg));
  }
};
} // namespace

std::unique_ptr<Check> createUnknownAccessCheck() { return std::make_unique<UnknownAccessCheck>(); }

} // namespace cudaperf
