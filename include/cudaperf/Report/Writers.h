//===- Writers.h - Text, JSON (schema v1) and SARIF 2.1.0 output -*- C++ -*-===//
#ifndef CUDAPERF_REPORT_WRITERS_H
#define CUDAPERF_REPORT_WRITERS_H

#include "cudaperf/Report/KernelReport.h"
#include "cudaperf/Report/TaskReport.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace cudaperf {

struct CheckInfo;

constexpr int JsonSchemaVersion = 1;
const char *toolVersion();

struct ReportOptions {
  std::string Arch = "sm_90";
  /// Paths in the output are relative to this directory when below it (default: the working
  /// directory); SARIF artifact URIs are relative to it too.
  std::string SourceRoot;
  bool Color = false;
};

/// Path of \p File relative to \p Root when below it, else as given.
std::string displayPath(const std::string &File, const std::string &Root);

/// clang-style `file:line:col: warning: message [check]` lines.
void writeTextDiagnostics(const std::vector<FileReport> &Reports, const ReportOptions &Opts,
                          llvm::raw_ostream &OS);
/// A short per-kernel summary: name, location, launch configuration and origin, accesses.
void writeTextSummary(const std::vector<FileReport> &Reports, const ReportOptions &Opts,
                      llvm::raw_ostream &OS);

/// A merged finding's `kernels` and `occurrences` (when it stands for more than one), added to
/// \p Out: the JSON diagnostic or the SARIF result's properties.
void addFindingCoverage(const Diagnostic &D, llvm::json::Object &Out);
/// `estimated_saving_us` (microseconds, to 3 decimals) where the finding has an estimate; the key
/// the JSON and SARIF writers share (docs/json-schema.md).
void addEstimatedSaving(const Diagnostic &D, llvm::json::Object &Out);

llvm::json::Value kernelToJSON(const KernelReport &K, const ReportOptions &Opts);
llvm::json::Value dimToJSON(const std::optional<Dim3> &D); // [x, y, z] or null
llvm::json::Value paramToJSON(const ParamValue &V);
/// A scalar value for text output: 42, 2.5.
std::string formatParam(const ParamValue &V);
llvm::json::Value diagnosticToJSON(const Diagnostic &D, const ReportOptions &Opts);
/// Adds what --task reports to a schema v1 document: "task" and "configurations".
void addTaskToJSON(llvm::json::Object &Document, const TaskReport &T, const ReportOptions &Opts);
/// --task in text: per configuration, each launch's kernel, grid, block and shared memory.
void writeTaskSummary(const TaskReport &T, const ReportOptions &Opts, llvm::raw_ostream &OS);
llvm::json::Value reportToJSON(const std::vector<FileReport> &Reports, const ReportOptions &Opts);
llvm::json::Value reportToSARIF(const std::vector<FileReport> &Reports,
                                const std::vector<const CheckInfo *> &Rules,
                                const ReportOptions &Opts);

} // namespace cudaperf

#endif
