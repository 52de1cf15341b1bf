//===- InvalidLaunchConfigCheck.cpp - cuda-invalid-launch-config --------------------------===//
//
// A launch whose configuration the runtime rejects, so the kernel never runs: a grid or block
// dimension of 0 (or negative, or above the device limits), more than 1024 threads per block, or
// -- for a launch evaluated at a task configuration -- more dynamic shared memory than the kernel
// may use. The facts are LaunchSite::Problems (launchConfigProblems in lib/Analysis).
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"

namespace cudaperf {

namespace {

class InvalidLaunchConfigCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-invalid-launch-config",
        "The launch configuration is rejected by the runtime: the kernel does not run",
        "A launch with a grid or block dimension below 1 or above the device limits (grid "
        "2147483647 x 65535 x 65535, block 1024 x 1024 x 64, 1024 threads), or with more dynamic "
        "shared memory than the kernel is allowed (48 KiB unless cudaFuncSetAttribute raises it), "
        "fails with cudaErrorInvalidConfiguration or cudaErrorInvalidValue; nothing is computed, "
        "and the error shows only if the program checks cudaGetLastError. A grid computed as "
        "n / block is 0 for n < block: round up, (n + block - 1) / block, and keep it at least 1.",
        Severity::Error};
    return I;
  }

  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    for (const LaunchSite &S : K.LaunchSites) {
      if (S.Problems.empty())
        continue;
      std::string Msg = "launch of '" + K.Name + "' fails before the kernel runs: ";
      for (size_t I = 0; I < S.Problems.size(); ++I)
        Msg += (I ? "; " : "") + S.Problems[I];
      Out.push_back(make(K, S.Loc, Msg));
    }
  }
};

} // namespace

std::unique_ptr<Check> createInvalidLaunchConfigCheck() {
  return std::make_unique<InvalidLaunchConfigCheck>();
}

} // namespace cudaperf
