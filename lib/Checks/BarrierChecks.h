//===- BarrierChecks.h - Helpers shared by the barrier checks ---*- C++ -*-===//
#ifndef CUDAPERF_CHECKS_BARRIERCHECKS_H
#define CUDAPERF_CHECKS_BARRIERCHECKS_H

#include "cudaperf/Report/KernelReport.h"

namespace cudaperf {

/// The location {line, column} recorded in a sync-section site object, in the kernel's file.
inline SourceLocation siteLocation(const KernelReport &K, const llvm::json::Object &Site) {
  SourceLocation L;
  L.File = K.Loc.File;
  L.Line = Site.getInteger("line").value_or(0);
  L.Column = Site.getInteger("column").value_or(0);
  return L;
}

/// The array K.Sync[Key] or an empty one.
inline const llvm::json::Array &syncSites(const KernelReport &K, llvm::StringRef Key) {
  static const llvm::json::Array Empty;
  const llvm::json::Array *A = K.Sync.getArray(Key);
  return A ? *A : Empty;
}

} // namespace cudaperf

#endif
