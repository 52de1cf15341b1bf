#include "cudaperf/Checks/Check.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/GlobPattern.h"
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

CheckFilter::CheckFilter(llvm::StringRef Spec) {
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  Spec.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    bool Enable = !P.consume_front("-");
    if (!P.empty())
      Patterns.emplace_back(Enable, P.str());
  }
}

bool CheckFilter::enabled(llvm::StringRef Name) const {
  bool On = false;
  for (const auto &[Enable, Glob] : Patterns) {
    auto G = llvm::GlobPattern::create(Glob);
    if (G && G->match(Name))
      On = Enable;
  }
  return On;
}

std::vector<std::string> CheckFilter::unmatchedPatterns() const {
  std::vector<std::string> Out;
  for (const auto &[Enable, Glob] : Patterns) {
    auto G = llvm::GlobPattern::create(Glob);
    bool Any = false;
    for (const auto &C : allChecks())
      Any |= G && G->match(C->info().Name);
    if (!Any)
      Out.push_back(Glob);
  }
  return Out;
}

void runChecks(FileReport &R, const CheckFilter &Filter) {
  for (const KernelReport &K : R.Kernels)
    for (const auto &C : allChecks())
      if (Filter.enabled(C->info().Name))
        C->run(K, R.Diagnostics);
  std::stable_sort(R.Diagnostics.begin(), R.Diagnostics.end(),
                   [](const Diagnostic &A, const Diagnostic &B) {
                     return std::tie(A.Loc.File, A.Loc.Line, A.Loc.Column) <
                            std::tie(B.Loc.File, B.Loc.Line, B.Loc.Column);
                   });
}

} // namespace cudaperf
