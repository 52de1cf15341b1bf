// cudaperf-eval's local modes (EvalModes.cpp): --validate, a batch file's jobs, and the run of the jobs
// on this host with their results written (docs/eval-result.md). cudaperf-eval.cpp parses the command
// line and picks the mode; the Redis queue's modes are QueueModes.h's.
#pragma once

#include "cudaperf/Runtime/Evaluator.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cudaperf::evaltool {

// Exit codes (docs/eval-result.md).
constexpr int kExitOk = 0;           // every result written; no internal_error
constexpr int kExitInternal = 1;     // some result is internal_error, or the environment is unusable
constexpr int kExitUsage = 2;        // bad command line
constexpr int kExitInvalidTask = 3;  // the task does not load (problems on stderr)
constexpr int kExitBadCandidate = 4; // a candidate file cannot be read

// Reports a usage error and exits (support::ArgParser::usageError); never returns.
using UsageError = std::function<void(const std::string &)>;

// The toolchain found and the GPUs probed; null (with the reason on stderr) when the environment
// is unusable.
std::unique_ptr<runtime::Evaluator> startEvaluator(const runtime::EvalOptions &opt, const std::string &nvcc);

// --validate: loads each task directory and says what it holds.
int runValidateMode(const std::vector<std::string> &positional, const UsageError &usageError);

// The jobs of a --batch file: "TASK_DIR CANDIDATE.cu" a line ('#' lines skipped).
std::vector<runtime::EvalJob> readBatchJobs(const std::string &batchFile, const UsageError &usageError);

// Evaluates the jobs and writes one result each (to outputPath, else stdout; pretty for one job unless jsonl),
// a summary line per result on stderr with `summary`.
int runJobs(const std::vector<runtime::EvalJob> &jobs, const runtime::EvalOptions &opt, const std::string &nvcc,
            const std::string &outputPath, bool jsonl, bool summary, const UsageError &usageError);

} // namespace cudaperf::evaltool
