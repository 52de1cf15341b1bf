// Where the CUDA toolkit and cudaperf's caches are: one lookup for the analyzer (headers, nvcc
// and NVRTC for ptxas's resource report) and the runtime (nvcc for candidates). No function here
// throws: a missing toolkit is an empty result the caller explains.
#pragma once

#include <string>
#include <vector>

namespace cudaperf::support {

// Toolkit roots to try, in order, without duplicates or empty entries: `explicitRoot`
// (--cuda-path), $CUDA_PATH, $CUDA_HOME, `extraDefaults` (e.g. the toolkit found at build
// time), /usr/local/cuda. Whether a root is usable is the caller's test (headers, nvcc, NVRTC).
std::vector<std::string> toolkitRoots(const std::string &explicitRoot = "",
                                      const std::vector<std::string> &extraDefaults = {});

// The first root of toolkitRoots() that has include/cuda_runtime.h; "" when none has.
std::string findToolkitWithHeaders(const std::vector<std::string> &roots);

// nvcc: `explicitNvcc` (--nvcc), $CUDAPERF_NVCC, ROOT/bin/nvcc for each of `roots`, then PATH.
// "" when none is executable.
std::string findNvcc(const std::vector<std::string> &roots, const std::string &explicitNvcc = "");

// An executable called `name` on $PATH; "" when there is none.
std::string findInPath(const std::string &name);

// Where cudaperf keeps caches: $CUDAPERF_CACHE_DIR as given (every cache shares it), else
// $XDG_CACHE_HOME/cudaperf/SUB, else ~/.cache/cudaperf/SUB (SUB omitted when empty); "" when no
// home directory is known.
std::string cacheDirectory(const std::string &sub = "");

} // namespace cudaperf::support
