//===- BarrierChecks.h - Helpers shared by the barrier checks ---*- C++ -*-===//
#ifndef CUDAPERF_CHECKS_BARRIERCHECKS_H
#define CUDAPERF_CHECKS_BARRIERCHECKS_H

#include "cudaperf/Report/KernelReport.h"

namespace cudaperf {

/// Where a site of the sync section is, in the kernel's file.
template <typename Site> SourceLocation siteLocation(const KernelReport &K, const Site &S) {
  SourceLocation L;
  L.File = K.Loc.File;
  L.Line = unsigned(S.Line);
  L.Column = unsigned(S.Column);
  return L;
}

/// The sites \p Member of K.Sync, or none when the kernel was not analysed.
template <typename T>
const std::vector<T> &syncSites(const KernelReport &K, std::vector<T> SyncFacts::*Member) {
  static const std::vector<T> Empty;
  return K.Sync ? (*K.Sync).*Member : Empty;
}

} // namespace cudaperf

#endif
