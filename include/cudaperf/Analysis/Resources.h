//===- Resources.h - Registers, spills and shared memory from NVIDIA's compiler -*- C++ -*-===//
//
// What ptxas allocates to each kernel of a file for one architecture, without a GPU: the file is
// compiled once by NVIDIA's compiler with ptxas's verbose report and the report is read back.
//
// Routes, in the order `auto` tries them (docs/resources.md has the measurements behind it):
//  nvcc   `nvcc -cubin -O3 -arch=sm_XX -Xptxas -v FILE`: accepts any file nvcc compiles, host
//         code included; the numbers are those of `nvcc -O3 -arch=sm_XX -c` (~0.8 s per file).
//  nvrtc  libnvrtc.so loaded at run time with `--ptxas-options=-v`: device-only sources (NVRTC
//         rejects host functions such as main()); template kernels are instantiated through
//         name expressions. Used when nvcc is absent, or first for files without host launches.
//  estimate  from clang's device IR (no NVIDIA compiler available): `"source": "estimate"`.
// Results are cached on disk by content (the file, the headers it includes from its own
// directory and -I directories), flags, architecture and compiler identity.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_RESOURCES_H
#define CUDAPERF_ANALYSIS_RESOURCES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Function;
}

namespace cudaperf {

/// ptxas's report for one entry function.
struct KernelResourceUsage {
  int Registers = 0;
  int SpillStoreBytes = 0;
  int SpillLoadBytes = 0;
  int StackFrameBytes = 0;   // local memory per thread (cudaFuncAttributes::localSizeBytes)
  int StaticSharedBytes = 0; // cudaFuncAttributes::sharedSizeBytes
  int Barriers = 0;
  int ConstantBytes = 0;     // cmem[0], the kernel's parameter/constant bank
};

/// Entry functions by mangled name, as ptxas's -v log lists them.
std::map<std::string, KernelResourceUsage> parsePtxasLog(llvm::StringRef Log);

enum class ResourceRoute { Auto, Nvcc, Nvrtc, Estimate };
/// "auto", "nvcc", "nvrtc", "estimate"; Auto for anything else.
ResourceRoute parseResourceRoute(llvm::StringRef S);

struct ResourceRequest {
  std::string File;
  std::string Arch = "sm_90";
  std::vector<std::string> Args;            // -I, -D, -U, -std=, -maxrregcount, ... as nvcc takes them
  std::vector<std::string> NameExpressions; // template kernels NVRTC must instantiate ("k<float>")
  bool HasHostCode = false;                 // the file launches kernels: NVRTC cannot compile it
  ResourceRoute Route = ResourceRoute::Auto;
  std::string CudaPath;                     // empty: $CUDA_PATH, then /usr/local/cuda, then $PATH
  std::string CacheDir;                     // empty: resourceCacheDir(); "-": no cache
};

struct ResourceReport {
  std::string Source;   // "nvcc" or "nvrtc"
  std::string Compiler; // version identity, e.g. "nvcc 13.0.48"
  bool Cached = false;
  double Seconds = 0;   // compile time (0 for a cache hit)
  std::map<std::string, KernelResourceUsage> Kernels;
  std::vector<std::string> Notes; // e.g. why NVRTC was not used
};

/// Compiles \p R.File with NVIDIA's compiler (or reads the cache). An error says why no route
/// worked; the caller then estimates. A prefetch of the same request is waited for instead.
llvm::Expected<ResourceReport> compileResources(const ResourceRequest &R);

/// Starts compileResources(R) on another thread, so that NVIDIA's compiler runs while clang parses
/// the file and the other analyses run (the register compile was most of the analyzer's time); a
/// later compileResources of the same request waits for it. cancelResourcePrefetches() stops the
/// unfinished ones (their compiler is killed) and waits for the threads: the driver calls it after
/// each file, so that a prefetch the analyses did not use (a file over --max-kernels) costs little.
void prefetchResources(const ResourceRequest &R);
void cancelResourcePrefetches();

/// The register compile of the translation unit that analyzeModule will ask for with \p Opts
/// (the file, its flags, $CUDAPERF_RESOURCES and $CUDAPERF_NVCC_FLAGS); std::nullopt when the
/// route is the estimate.
struct AnalyzerOptions;
std::optional<ResourceRequest> fileResourceRequest(const AnalyzerOptions &Opts);

/// $CUDAPERF_CACHE_DIR, else $XDG_CACHE_HOME/cudaperf, else ~/.cache/cudaperf.
std::string resourceCacheDir();

/// The IR-based stand-in when no NVIDIA compiler is available: static shared memory from the
/// kernel's addrspace(3) globals, local memory from its remaining allocas, registers from the
/// peak number of simultaneously live 32-bit values, barriers from barrier intrinsics. Spills are
/// unknown (0).
KernelResourceUsage estimateResources(const llvm::Function &Kernel);

} // namespace cudaperf

#endif
