//===- EmbeddedHeaders.h - cudaperf's headers, carried in the binary -*- C++ -*-===//
#ifndef CUDAPERF_FRONTEND_EMBEDDEDHEADERS_H
#define CUDAPERF_FRONTEND_EMBEDDEDHEADERS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace cudaperf {

struct EmbeddedHeader {
  const char *Path;     // relative to lib/Frontend/headers, e.g. "common/cudaperf_nvcc_compat.h"
  const char *Contents;
};

/// Where the embedded headers appear in the analyzer's virtual file system.
constexpr llvm::StringLiteral EmbeddedHeaderRoot = "/cudaperf-builtin-headers";

llvm::ArrayRef<EmbeddedHeader> embeddedHeaders();

} // namespace cudaperf

#endif
