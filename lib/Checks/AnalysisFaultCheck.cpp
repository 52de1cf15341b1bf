//===- AnalysisFaultCheck.cpp - cudaperf-analysis-fault ---------------------------------===//
//
// An analysis of a kernel stopped with a fault (a crash inside cudaperf, caught by
// lib/Analysis/FaultIsolation): its facts are missing from the report. The kernel's other analyses
// and the other kernels are reported as usual; the tool exits with 1.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"

namespace cudaperf {

namespace {

class AnalysisFaultCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cudaperf-analysis-fault",
        "an analysis of the kernel stopped with a fault inside cudaperf",
        "cudaperf caught a crash (a signal, a failed assertion, a stack overflow) in one of its "
        "analyses of this kernel. The facts that analysis would have added are missing, so "
        "findings that depend on them cannot be reported; everything else is. This is a defect "
        "of cudaperf, not of the kernel: please report it with the file.",
        Severity::Error};
    return I;
  }

  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    for (const AnalysisFault &F : K.AnalysisFaults)
      Out.push_back(make(K, K.Loc,
                         "the " + F.Analysis + " analysis of kernel '" + K.Name +
                             "' stopped with a fault (" + F.Fault +
                             "): its facts are missing from this report; this is a cudaperf "
                             "defect, please report it with this file"));
  }
};

} // namespace

std::unique_ptr<Check> createAnalysisFaultCheck() { return std::make_unique<AnalysisFaultCheck>(); }

} // namespace cudaperf
