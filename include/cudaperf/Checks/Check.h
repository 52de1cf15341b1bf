//===- Check.h - Diagnostics from kernel facts ------------------*- C++ -*-===//
//
// A check turns facts that the analyses recorded in a KernelReport into diagnostics. One check per
// file in lib/Checks, a docs page docs/checks/<name>.md, and a registration line in
// CheckRegistry.cpp. The name is stable kebab-case: the [name] of text diagnostics, the SARIF
// ruleId and the docs page.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_CHECKS_CHECK_H
#define CUDAPERF_CHECKS_CHECK_H

#include "cudaperf/Report/KernelReport.h"
#include "llvm/ADT/StringRef.h"
#include <memory>
#include <string>
#include <vector>

namespace cudaperf {

struct CheckInfo {
  std::string Name;        // cuda-uncoalesced-access
  std::string Summary;     // one line, for SARIF shortDescription
  std::string Description; // why it costs, for SARIF fullDescription
  Severity DefaultSeverity = Severity::Warning;
};

class Check {
public:
  virtual ~Check();
  virtual const CheckInfo &info() const = 0;
  virtual void run(const KernelReport &K, std::vector<Diagnostic> &Out) const = 0;

protected:
  Diagnostic make(const KernelReport &K, const SourceLocation &Loc, std::string Message) const;
};

/// Every registered check.
const std::vector<std::unique_ptr<Check>> &allChecks();

/// Which checks run: comma-separated glob patterns over check names, applied in order, a leading
/// '-' removing (clang-tidy's syntax): "*" (default), "-*,cuda-missing-barrier", "cuda-*,-cuda-tail-effect".
class CheckFilter {
public:
  explicit CheckFilter(llvm::StringRef Spec = "*");
  bool enabled(llvm::StringRef Name) const;
  /// Patterns that match no registered check (probably typos).
  std::vector<std::string> unmatchedPatterns() const;

private:
  std::vector<std::pair<bool, std::string>> Patterns; // (enable, glob)
};

/// Runs the enabled checks on every kernel of \p R, appending to R.Diagnostics; repeated findings
/// (one check, one source location) are folded into one with a count, and the list is ordered by
/// orderByCost.
void runChecks(FileReport &R, const CheckFilter &Filter = CheckFilter());

/// Orders findings: correctness (races, failing launches, analysis faults) first, then those with
/// an estimated saving, largest first, then other warnings, then notes; source order within each.
void orderByCost(std::vector<Diagnostic> &Diags);

} // namespace cudaperf

#endif
