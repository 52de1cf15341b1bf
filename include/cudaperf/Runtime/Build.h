// Builds implementations (nvcc into a shared object) and the task's reference (host C compiler
// into a shared object), each behind a generated shim with one fixed C entry point, so the
// worker can call any task's signature without an FFI. Objects are cached on disk under a
// SHA-256 of the sources, shim, flags and compiler version.
#pragma once

#include "cudaperf/Runtime/Task.h"

#include <string>
#include <vector>

namespace cudaperf::runtime {

// Names the shims export; the worker looks them up with dlsym.
constexpr const char *kEntryShimSymbol = "cudaperf_invoke_entry";         // (void *const *args, cudaStream_t)
constexpr const char *kReferenceShimSymbol = "cudaperf_invoke_reference"; // (void *const *args)

struct Toolchain {
  std::string nvcc;
  std::string nvccVersion;     // "13.0.88"
  std::string nvccVersionText; // whole `nvcc --version` output, part of cache keys
  std::string hostCompiler;    // cc for reference.c
  std::string hostCompilerVersionText;
};

// Finds nvcc (support::findNvcc: the override, $CUDAPERF_NVCC, $CUDA_PATH/bin, $CUDA_HOME/bin,
// /usr/local/cuda/bin, PATH) and the host compiler ($CC, cc). Throws std::runtime_error if nvcc
// is missing.
Toolchain findToolchain(const std::string &nvccOverride = "");

struct BuildOptions {
  std::string arch = "sm_90";
  std::string cacheDir;          // default: defaultCacheDir()
  double timeoutSeconds = 60;
  bool useCache = true;
};
std::string defaultCacheDir(); // $CUDAPERF_CACHE_DIR, else $XDG_CACHE_HOME/cudaperf/build, else ~/.cache/...
// The build cache is bounded (docs/security.md): at most buildCacheEntryLimit() entries
// ($CUDAPERF_BUILD_CACHE_ENTRIES, default 2048). trimBuildCache removes the least recently used
// entries (a hit renews its status file's time) until at most maxEntries remain, never one used in
// the last graceSeconds; returns how many it removed. Builds in progress (".tmp-") are left alone.
size_t buildCacheEntryLimit();
size_t trimBuildCache(const std::string &cacheDir, size_t maxEntries, double graceSeconds);

struct BuildResult {
  bool ok = false;
  bool cached = false;
  bool timedOut = false;
  std::string objectPath; // the .so when ok
  std::string log;        // compiler output (first 64 KiB)
  std::string command;    // what was run, for the record
  std::string key;        // cache key
  double seconds = 0;     // compile time (0 when cached)
};

// The C declaration implementations must define, for messages and docs.
std::string entrySignature(const Task &task);
std::string generateEntryShim(const Task &task);
std::string generateReferenceShim(const Task &task);

BuildResult buildImplementation(const Task &task, const std::string &cuPath, const Toolchain &tc,
                                const BuildOptions &options);
BuildResult buildReference(const Task &task, const Toolchain &tc, const BuildOptions &options);

bool readFile(const std::string &path, std::string &out);
bool writeFile(const std::string &path, const std::string &data);
bool makeDirs(const std::string &path);

} // namespace cudaperf::runtime
