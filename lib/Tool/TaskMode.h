//===- TaskMode.h - cudaperf-analyze --task ------------------------*- C++ -*-===//
#ifndef CUDAPERF_TOOL_TASKMODE_H
#define CUDAPERF_TOOL_TASKMODE_H

#include "cudaperf/Analysis/AnalysisContext.h"
#include "cudaperf/Checks/Check.h"
#include "cudaperf/Frontend/Frontend.h"
#include "cudaperf/Report/Writers.h"

namespace clang::tooling {
class CompilationDatabase;
}

namespace cudaperf {

struct TaskModeOptions {
  std::string TaskDir;
  std::string Configs = "all"; // --config: "all" or names separated by commas
  std::string File;            // the candidate
  bool Json = false;
  std::string Sarif; // also write SARIF (the file's kernels, as without --task)
};

/// Loads the task, runs the candidate's entry point at each selected configuration, analyses
/// every launch at its values, and prints the schema v1 document with "task" and
/// "configurations" (docs/json-schema.md). Returns the tool's exit code.
int runTaskMode(const TaskModeOptions &TO, const clang::tooling::CompilationDatabase &DB,
                FrontendOptions FO, const AnalyzerOptions &AO, const ReportOptions &RO,
                const CheckFilter &Filter);

/// Sources larger than this are refused (a kernel file of ours is well under 1 MiB).
constexpr size_t kMaxSourceBytes = size_t(64) << 20;
/// Rejects inputs clang would choke on or that would block it: missing, directories, anything but a
/// regular file (FIFO, device, socket), larger than kMaxSourceBytes, binary data. Returns an error
/// message or "" (InputFile.cpp).
std::string checkInputFile(const std::string &File);
/// Whether one of \p File's #include lines names an existing file that is not a regular file: NVIDIA's
/// in-process compiler (the register prefetch) would block on it where clang reports it; such a file
/// gets no prefetch.
bool includesSpecialFile(const std::string &File);

/// Writes SARIF for \p Reports to \p Path; false (with a message on stderr) when it cannot.
bool writeSarifFile(const std::string &Path, const std::vector<FileReport> &Reports,
                    const CheckFilter &Filter, const ReportOptions &RO);

/// Parses \p File with every fault in the parser caught (\p InjectFaultKind raises one at its end,
/// for tests); nothing, with the reason on stderr, when the file cannot be analysed.
std::optional<ParsedFile> parseFileIsolated(const clang::tooling::CompilationDatabase &DB,
                                            const std::string &File, const FrontendOptions &FO,
                                            llvm::StringRef InjectFaultKind = "");

/// runChecks with its faults caught: false (findings dropped, a message on stderr) after one.
bool runChecksIsolated(FileReport &R, const CheckFilter &Filter);

} // namespace cudaperf

#endif
