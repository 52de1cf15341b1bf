//===- SourceRewrites.h - nvcc-only syntax made clang syntax, as files are read -*- C++ -*-===//
//
// Constructs nvcc accepts that are errors to clang, whatever the headers declare:
//  - an alignment specifier after __shared__ (`__shared__ alignas(16) float tile[...]`): C++ puts
//    alignas before the declaration's attributes, nvcc anywhere; rewritten to the same-length
//    `__alnas(16)`, which cudaperf_nvcc_compat.h defines as clang's _Alignas (accepted there);
//  - a PTX special register written with one '%' in an extended asm statement
//    (`asm("mov.u64 %0, %globaltimer;" : "=l"(t))`): nvcc passes it through, clang reads '%g' as an
//    operand modifier; rewritten to '%%' (the line gets one column longer per occurrence); and
//    operands of one list without the comma between them (`:: "r"(v) "l"(p)`), given one.
//  - a libcu++ barrier or pipeline state in __shared__ memory inside a function
//    (`__shared__ cuda::barrier<cuda::thread_scope_block> bar;`): nvcc ignores its construction
//    with a warning, clang rejects it; rewritten to uninitialised storage of the same type and a
//    reference named like the variable (appended on the same line, so later lines keep their
//    positions).
//  - a kernel launch inside a __global__ or __device__ function (dynamic parallelism), which
//    clang does not support: `k<<<g, b>>>(args)` becomes `__cudaperf_device_launch(g, b, args)`,
//    evaluating the same expressions without a launch.
// The user's files are rewritten as clang reads them (a virtual file system over the real one);
// the toolkit's and the system's headers are left alone.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_FRONTEND_SOURCEREWRITES_H
#define CUDAPERF_FRONTEND_SOURCEREWRITES_H

#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <optional>
#include <string>
#include <vector>

namespace cudaperf {

/// \p Text with the nvcc-only constructs rewritten, or std::nullopt when it has none.
std::optional<std::string> rewriteNvccOnlySyntax(llvm::StringRef Text);

/// A file system that reads \p Base and rewrites every file outside \p UntouchedDirs.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
createNvccSourceFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base,
                           std::vector<std::string> UntouchedDirs);

} // namespace cudaperf

#endif
