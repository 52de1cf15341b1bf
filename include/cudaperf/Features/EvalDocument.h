// The evaluator's result (`cudaperf-eval-result/1`, docs/eval-result.md) and the counters document
// (`cudaperf-counters/1`, docs/counters.md; also embedded per configuration of a result) as
// structs: what features and joins read. The result is read with lib/Schema's EvalResult (one
// reader of the document); this is the features' view of it. Keys a newer writer adds are ignored.
#pragma once

#include "cudaperf/Features/AnalysisDocument.h"
#include "cudaperf/Schema/Outcome.h"
#include "cudaperf/Support/Json.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::features {

// Metric names (Perfworks / Nsight Compute spelling, lib/Counters/CounterMetrics.cpp's table)
// that features read.
namespace metric {
constexpr const char *kGlobalLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
constexpr const char *kGlobalStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
constexpr const char *kGlobalLoadRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
constexpr const char *kGlobalStoreRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
constexpr const char *kSharedLoadWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
constexpr const char *kSharedStoreWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
constexpr const char *kSharedLoadInstructions = "smsp__inst_executed_op_shared_ld.sum";
constexpr const char *kSharedStoreInstructions = "smsp__inst_executed_op_shared_st.sum";
constexpr const char *kDramRead = "dram__bytes_read.sum";
constexpr const char *kDramWrite = "dram__bytes_write.sum";
constexpr const char *kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char *kDuration = "gpu__time_duration.sum";
constexpr const char *kRegisters = "launch__registers_per_thread";
// Thread-level SASS instruction counts per precision (add, mul, fma): FLOP = add + mul + 2 fma.
// Index 0: fp16 (h), 2: fp32 (f), 3: fp64 (d), as kPrecisions; bf16 has none of its own.
std::string sassInstructions(const char *precisionLetter, const char *op); // ("f", "fma") -> ..._ffma_pred_on.sum
} // namespace metric

struct MeasuredKernel {
  std::string name;      // mangled
  std::string demangled;
  int launch = 0;        // order among the launches of the profiled call
  std::map<std::string, double> metrics;

  std::optional<double> get(const std::string &metricName) const;
};

struct CountersSection {
  bool available = false;
  std::string reason;
  std::string gpuName, computeCapability;
  std::map<std::string, std::string> droppedMetrics;
  std::vector<MeasuredKernel> kernels; // sorted by launch
  int64_t kernelsNotProfiled = 0;
  std::vector<std::string> notes;
};

// A launch the worker saw during the audit call (configs[].launches[], being added by the eval side).
struct MeasuredLaunch {
  std::string kernel; // mangled
  std::optional<Dim3> grid, block;
  std::optional<int64_t> dynamicSmemBytes;
};

struct TimingSummary {
  double medianMs = 0, minMs = 0, maxMs = 0, meanMs = 0, p10Ms = 0, p90Ms = 0, spread = 0;
  int64_t runs = 0;
  std::optional<bool> stable;
};

struct EvalConfiguration {
  std::string name;
  std::map<std::string, double> params;
  std::optional<bool> correct; // correctness.pass
  std::optional<TimingSummary> candidate, baseline, pytorchEager;
  std::optional<double> speedup, referenceMs;
  std::optional<CountersSection> counters;
  std::optional<std::vector<MeasuredLaunch>> launches;
  bool launchesTruncated = false; // the worker keeps at most 256
};

struct EvalResult {
  std::string source;
  std::string task, taskDir, candidate, candidateSha256, detail;
  schema::Outcome outcome = schema::Outcome::InternalError;
  std::string unknownOutcome; // an outcome a newer evaluator added (outcome is then InternalError)
  std::optional<double> speedup;
  std::string gpuName, arch;
  std::optional<int64_t> multiprocessors;
  std::vector<EvalConfiguration> configs;

  const EvalConfiguration *configuration(const std::string &name) const;
  // The outcome's wire name ("ok", ...; unknownOutcome when set).
  std::string outcomeText() const { return unknownOutcome.empty() ? schema::outcomeName(outcome) : unknownOutcome; }
};

// Throws FeaturesError naming `source` and the field path.
EvalResult readEvalResult(const support::Json &doc, const std::string &source);
// Every result of a file: one pretty document, or JSON Lines (`source:LINE` in messages).
std::vector<EvalResult> readEvalResultFile(const std::string &path);
// A standalone counters document (with "schema": "cudaperf-counters/1").
CountersSection readCountersDocument(const support::Json &doc, const std::string &source);

} // namespace cudaperf::features
