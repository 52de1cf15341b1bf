//===- Driver.h - cudaperf-analyze as a library call ------------*- C++ -*-===//
//
// The tool's whole behaviour (options, exit codes, output) behind one function, so the thin main and
// the tests run the same code.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_TOOL_DRIVER_H
#define CUDAPERF_TOOL_DRIVER_H

#include "cudaperf/Analysis/AnalysisContext.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace cudaperf {

enum ExitCode { ExitAnalysed = 0, ExitInputError = 1, ExitUsage = 2, ExitDeadline = 3 };

/// Parses --launch=KERNEL:GRID:BLOCK[:SMEM] (GRID may be empty, dims as 256, 16x16 or 8x8x4).
/// Returns the kernel name, or std::nullopt with \p Error set.
std::optional<std::string> parseLaunchOption(llvm::StringRef Spec, LaunchOverride &Out,
                                             std::string &Error);
/// Parses --param KERNEL:NAME=VALUE.
std::optional<std::string> parseParamOption(llvm::StringRef Spec, std::string &Name,
                                            ParamValue &Value, std::string &Error);

/// Runs cudaperf-analyze with a full command line (argv[0] included).
int runAnalyzeTool(int Argc, const char **Argv);

} // namespace cudaperf

#endif
