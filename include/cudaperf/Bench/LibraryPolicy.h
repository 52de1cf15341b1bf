// Library calls a suite disallows (docs/bench.md, "Disallowed libraries"): a candidate that hands
// the work to cuBLAS or cuDNN has not written the kernel, so where a suite says so it fails like
// any other hack. Evidence comes from the candidate's source (includes, calls, shared objects
// named for dlopen, with comments removed) and, where the evaluator recorded them, from the names
// of the kernels it launched.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::bench {

// The library names a suite may list, sorted ("cublas", "cublasLt", "cudnn", ...).
std::vector<std::string> knownLibraries();
bool isKnownLibrary(const std::string &name);

struct LibraryUse {
  std::string library;  // one of the disallowed names
  std::string evidence; // what was found: "#include <cublas_v2.h>", "call cublasSgemm(", "kernel sm90_xmma_gemm..."
};

// The first disallowed library the candidate uses, if any. `launchedKernels` are mangled kernel
// names (may be empty). Any dlopen/dlsym counts against a non-empty list: it can load them all.
std::optional<LibraryUse> findDisallowedLibrary(const std::string &source,
                                                const std::vector<std::string> &launchedKernels,
                                                const std::vector<std::string> &disallowed);

// The source with // and /* */ comments replaced by spaces, newlines kept (support::commentSpans: string,
// character and raw string literals are not comments).
std::string withoutComments(const std::string &source);

} // namespace cudaperf::bench
