//===- Frontend.h - CUDA source to AST facts and device IR -----*- C++ -*-===//
//
// Parses a .cu file once, in clang's CUDA device mode, and returns both what the AST says about its
// kernels (parameters, launch bounds, shared arrays, launch sites in host code) and the NVPTX LLVM
// IR of its device code with debug locations. One parse serves both: clang parses host and device
// functions in either pass, so host-side launch sites are visible in the device pass.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_FRONTEND_FRONTEND_H
#define CUDAPERF_FRONTEND_FRONTEND_H

#include "cudaperf/Frontend/HostEvaluation.h"
#include "cudaperf/Report/KernelReport.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include <memory>
#include <string>
#include <vector>

namespace clang::tooling {
class CompilationDatabase;
}

namespace cudaperf {

enum class HeaderMode {
  Auto,    // the CUDA toolkit's headers when a toolkit is found, else the built-in ones
  SDK,     // the toolkit's headers (as they are: clang 22 accepts CUDA 13's)
  Builtin, // cudaperf's self-contained declarations; no toolkit needed
};

struct FrontendOptions {
  std::string Arch = "sm_90";
  HeaderMode Headers = HeaderMode::Auto;
  std::string CudaPath;    // toolkit root; empty: $CUDA_PATH, then the configured default
  std::string ResourceDir; // clang resource dir; empty: the configured default
  std::string OptLevel = "-O3";
  std::vector<std::string> ExtraArgs; // appended to every compile command
  /// Set for --task: the entry point to run at each configuration (HostEvaluation.h).
  const HostEntryRequest *Entry = nullptr;
};

/// The result of parsing one translation unit.
struct ParsedFile {
  std::string File;
  bool Success = false;
  std::vector<KernelReport> Kernels; // identity and AST facts filled; analyses fill the rest
  std::unique_ptr<llvm::LLVMContext> Context;
  std::unique_ptr<llvm::Module> DeviceModule; // null when parsing failed
  std::string HeaderModeUsed;                 // "sdk" or "builtin"
  /// With FrontendOptions::Entry: one per configuration, in the request's order.
  std::vector<HostEvaluation> HostEvaluations;
};

/// Resolves the toolkit to use under \p Opts, or "" for the built-in headers.
std::string resolveCudaPath(const FrontendOptions &Opts);

/// Parses \p Files with the commands from \p DB (a fixed database from the flags after `--`, or
/// compile_commands.json). Clang's diagnostics go to stderr. Returns one ParsedFile per input.
std::vector<ParsedFile> parseFiles(const clang::tooling::CompilationDatabase &DB,
                                   const std::vector<std::string> &Files,
                                   const FrontendOptions &Opts);

/// Turns an nvcc-style command line into one clang understands in CUDA mode: drops options that
/// only mean something to nvcc (-gencode, -rdc, --expt-*, -Xptxas ...), unwraps -Xcompiler,
/// translates -arch=sm_XX. Exposed for tests.
std::vector<std::string> translateNvccArgs(const std::vector<std::string> &Args);

/// The flags of \p File's compile command that change what the source means -- include paths,
/// macro definitions, forced includes, the language standard, and nvcc's code-generation options
/// (nvccCodeGenerationFlags) -- translated from nvcc syntax and with relative paths made absolute
/// against the command's directory. Other tools that compile the same file (NVIDIA's compiler for
/// resources) need them.
std::vector<std::string> sourceMeaningFlags(const clang::tooling::CompilationDatabase &DB,
                                            const std::string &File);

/// The options of an nvcc command line that change the device code NVIDIA's compiler makes (and
/// its register counts) but mean nothing to clang: --expt-relaxed-constexpr, --extended-lambda,
/// -rdc=true (also from -dc), --use_fast_math, -maxrregcount=N, --fmad/--ftz/--prec-div/--prec-sqrt.
/// sourceMeaningFlags appends them from the compile command.
std::vector<std::string> nvccCodeGenerationFlags(const std::vector<std::string> &Args);

} // namespace cudaperf

#endif
