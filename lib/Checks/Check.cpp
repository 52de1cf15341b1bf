#include "cudaperf/Checks/Check.h"
#include <algorithm>

namespace cudaperf {

Check::~Check() = default;

Diagnostic Check::make(const KernelReport &K, const SourceLocation &Loc, std::string Message) const {
  Diagnostic D;
  D.Check = info().Name;
  D.Level = info().DefaultSeverity;
  D.Message = std::move(Message);
  D.Loc = Loc.isValid() ? Loc : K.Loc;
  D.Kernel = K.Name;
  return D;
}

void runChecks(FileReport &R) {
  for (const KernelReport &K : R.Kernels)
    for (const auto &C : allChecks())
      C->run(K, R.Diagnostics);
  std::stable_sort(R.Diagnostics.begin(), R.Diagnostics.end(),
                   [](const Diagnostic &A, const Diagnostic &B) {
                     return std::tie(A.Loc.File, A.Loc.Line, A.Loc.Column) <
                            std::tie(B.Loc.File, B.Loc.Line, B.Loc.Column);
                   });
}

} // namespace cudaperf
