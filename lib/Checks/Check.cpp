#include "cudaperf/Checks/Check.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/GlobPattern.h"
#include <algorithm>
#include <map>
#include <tuple>

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

namespace {

/// "; reported once for 3 instantiations (k<1>, k<2>, k<4>) and 12 copies of this code (unrolled
/// iterations or inlined calls)".
std::string coverageNote(const Diagnostic &D) {
  std::string Note;
  if (D.Kernels.size() > 1) {
    Note += std::to_string(D.Kernels.size()) + " instantiations (";
    constexpr size_t MaxNamed = 4;
    for (size_t I = 0; I < D.Kernels.size() && I < MaxNamed; ++I)
      Note += (I ? ", " : "") + D.Kernels[I];
    if (D.Kernels.size() > MaxNamed)
      Note += ", ...";
    Note += ")";
  }
  if (D.Occurrences > D.Kernels.size()) {
    if (!Note.empty())
      Note += " and ";
    Note += std::to_string(D.Occurrences) + " copies of this code (unrolled iterations or inlined calls)";
  }
  return Note.empty() ? "" : "; reported once for " + Note;
}

/// One diagnostic per check and source location; the first (in kernel and instruction order) keeps
/// its message and the others are counted.
void mergeRepeatedFindings(std::vector<Diagnostic> &Diags) {
  std::vector<Diagnostic> Out;
  std::map<std::tuple<std::string, std::string, unsigned, unsigned>, size_t> Seen;
  for (Diagnostic &D : Diags) {
    auto Key = std::make_tuple(D.Check, D.Loc.File, D.Loc.Line, D.Loc.Column);
    auto [It, New] = Seen.try_emplace(Key, Out.size());
    if (New) {
      D.Kernels = {D.Kernel};
      Out.push_back(std::move(D));
      continue;
    }
    Diagnostic &First = Out[It->second];
    ++First.Occurrences;
    if (std::find(First.Kernels.begin(), First.Kernels.end(), D.Kernel) == First.Kernels.end())
      First.Kernels.push_back(D.Kernel);
    First.Level = std::max(First.Level, D.Level);
    if (D.EstimatedSavingUs)
      First.EstimatedSavingUs = First.EstimatedSavingUs.value_or(0) + *D.EstimatedSavingUs;
  }
  for (Diagnostic &D : Out)
    D.Message += coverageNote(D);
  Diags = std::move(Out);
}

} // namespace

void runChecks(FileReport &R, const CheckFilter &Filter) {
  for (const KernelReport &K : R.Kernels)
    for (const auto &C : allChecks())
      if (Filter.enabled(C->info().Name))
        C->run(K, R.Diagnostics);
  mergeRepeatedFindings(R.Diagnostics);
  orderByCost(R.Diagnostics);
}

/// Where a finding goes in the list: wrong results first (races, launches that fail, analyses
/// that faulted), then findings with an estimated saving, largest first (as Nsight Compute orders
/// its rules by estimated speedup), then the other warnings, then notes; source order within a
/// rank.
static int rankOf(const Diagnostic &D) {
  static const char *const Correctness[] = {"cuda-missing-barrier", "cuda-shared-war-hazard",
                                            "cuda-divergent-barrier", "cuda-invalid-launch-config",
                                            "cudaperf-analysis-fault"};
  for (const char *C : Correctness)
    if (D.Check == C)
      return 0;
  if (D.Level == Severity::Note)
    return 3;
  return D.EstimatedSavingUs ? 1 : 2;
}

void orderByCost(std::vector<Diagnostic> &Diags) {
  std::stable_sort(Diags.begin(), Diags.end(), [](const Diagnostic &A, const Diagnostic &B) {
    int RA = rankOf(A), RB = rankOf(B);
    if (RA != RB)
      return RA < RB;
    if (RA == 1 && *A.EstimatedSavingUs != *B.EstimatedSavingUs)
      return *A.EstimatedSavingUs > *B.EstimatedSavingUs;
    return std::tie(A.Loc.File, A.Loc.Line, A.Loc.Column) <
           std::tie(B.Loc.File, B.Loc.Line, B.Loc.Column);
  });
}

} // namespace cudaperf
