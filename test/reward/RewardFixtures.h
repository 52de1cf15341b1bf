// Hand-made inputs of the reward tests: a --task analysis document with one launch per
// configuration whose report the test sets field by field, and eval results with timings. The
// numbers are chosen so that every expected value in the tests can be computed by hand.
#pragma once

#include "cudaperf/Features/Features.h"
#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/Reward.h"
#include "cudaperf/Support/Json.h"

#include <ostream>
#include <string>
#include <vector>

namespace rewardtest {

using cudaperf::support::Json;

// One kernel report: `threads` threads in blocks of 256, one 4-byte global load per thread with
// the given predicted/ideal sectors, occupancy and waves as given, a roofline time, memory-bound.
struct LaunchSpec {
  std::string kernel = "k";
  int64_t gridBlocks = 1056;
  double occupancy = 1.0;
  double waves = 1.0;
  double rooflineUs = 10.0;
  double dramBytes = 43e6; // 10 us at the H200's measured 4.3 TB/s
  double sectors = 4, idealSectors = 4; // of the global load
  double coalescingEfficiency = 1.0;
  std::optional<double> sharedWays;     // a shared load with these wavefronts (ideal 1)
  int divergentBarriers = 0, missingBarriers = 0;
  bool sameAddressAtomic = false;       // one global atomicAdd to one address per thread
  std::optional<double> atomicLaneExecutions; // the analyzer's lane_executions of that atomic (guards)
  bool memoryBound = true;
  bool storesOutput = false; // a coalesced 4-byte global store per thread (static-only: not `no_work`)
};

inline Json kernelReport(const LaunchSpec &s) {
  double threads = double(s.gridBlocks) * 256;
  Json accesses = Json::array();
  accesses.push_back({{"space", "global"}, {"op", "load"}, {"bytes", 4}, {"pattern", "coalesced"},
                      {"sectors_per_request", s.sectors}, {"ideal_sectors_per_request", s.idealSectors},
                      {"bank_conflict_ways", nullptr}, {"executions_per_thread", 1}, {"line", 5}, {"column", 9}});
  if (s.sharedWays)
    accesses.push_back({{"space", "shared"}, {"op", "load"}, {"bytes", 4}, {"pattern", "bank-conflict"},
                        {"sectors_per_request", nullptr}, {"bank_conflict_ways", *s.sharedWays},
                        {"ideal_wavefronts", 1}, {"executions_per_thread", 1}, {"line", 6}, {"column", 9}});
  if (s.storesOutput)
    accesses.push_back({{"space", "global"}, {"op", "store"}, {"bytes", 4}, {"pattern", "coalesced"},
                        {"sectors_per_request", 4}, {"ideal_sectors_per_request", 4}, {"bank_conflict_ways", nullptr},
                        {"executions_per_thread", 1}, {"line", 8}, {"column", 9}});
  if (s.sameAddressAtomic) {
    accesses.push_back({{"space", "global"}, {"op", "atomic"}, {"bytes", 4}, {"pattern", "broadcast"},
                        {"sectors_per_request", 1}, {"ideal_sectors_per_request", 1}, {"bank_conflict_ways", nullptr},
                        {"executions_per_thread", 1}, {"line", 7}, {"column", 9}});
    if (s.atomicLaneExecutions)
      accesses.back()["lane_executions"] = *s.atomicLaneExecutions;
  }
  Json missing = Json::array();
  for (int i = 0; i < s.missingBarriers; ++i)
    missing.push_back({{"line", 6}, {"column", 9}});
  return Json{{"name", s.kernel},
              {"mangled_name", "_Z1" + s.kernel + "v"},
              {"file", "cand.cu"}, {"line", 3}, {"column", 1}, {"parameters", Json::array()},
              {"launch", {{"grid", {s.gridBlocks, 1, 1}}, {"block", {256, 1, 1}}, {"dynamic_smem_bytes", 0},
                          {"origin", "task-config"}}},
              {"launch_sites", Json::array()}, {"shared_arrays", Json::array()},
              {"coalescing_efficiency", s.coalescingEfficiency},
              {"accesses", accesses},
              {"sync", {{"barriers", 1}, {"divergent_barriers", s.divergentBarriers}, {"missing_barrier_sites", missing}}},
              {"resources", {{"registers", 32}, {"source", "nvcc"}}},
              {"occupancy", {{"active_blocks_per_sm", 8}, {"theoretical", s.occupancy}, {"limiter", "warps"},
                             {"device", "H200"}, {"sms", 132}, {"grid_blocks", s.gridBlocks}, {"waves", s.waves},
                             {"last_wave_fraction", 1.0}}},
              {"work", {{"threads", threads}, {"flops", {{"total", 0}}},
                        {"dram_read_bytes_estimate", s.dramBytes / 2}, {"dram_write_bytes_estimate", s.dramBytes / 2},
                        {"shared_bytes", s.sharedWays ? threads * 4 : 0},
                        {"roofline_time_us", s.rooflineUs}, {"bound", s.memoryBound ? "memory" : "compute"}}}};
}

struct ConfigSpec {
  std::string name;
  std::vector<LaunchSpec> launches;
  std::vector<Json> diagnostics;
};

inline Json analysis(const std::vector<ConfigSpec> &configs, const std::string &kind = "c-to-cuda") {
  Json doc = {{"schema_version", 1}, {"arch", "sm_90"}, {"kernels", Json::array()}, {"diagnostics", Json::array()},
              {"task", {{"name", "toy"}, {"dir", "data/tasks/toy"}, {"entry", "toy"}, {"kind", kind}}},
              {"configurations", Json::array()}};
  for (const ConfigSpec &c : configs) {
    Json launches = Json::array();
    for (size_t i = 0; i < c.launches.size(); ++i)
      launches.push_back({{"index", i}, {"kernel", c.launches[i].kernel},
                          {"mangled_name", "_Z1" + c.launches[i].kernel + "v"},
                          {"site", {{"file", "cand.cu"}, {"line", 20}, {"column", 3}}},
                          {"resolved", true}, {"unresolved", Json::array()},
                          {"grid", {c.launches[i].gridBlocks, 1, 1}}, {"block", {256, 1, 1}},
                          {"dynamic_smem_bytes", 0}, {"scalar_args", Json::object()},
                          {"report", kernelReport(c.launches[i])}});
    doc["configurations"].push_back({{"name", c.name}, {"values", {{"n", 1}}}, {"entry_found", true},
                                     {"launches_complete", true}, {"launches", launches},
                                     {"diagnostics", c.diagnostics}});
  }
  return doc;
}

inline Json timing(double medianMs, double spread) {
  return {{"median_ms", medianMs}, {"min_ms", medianMs}, {"max_ms", medianMs}, {"mean_ms", medianMs},
          {"p10_ms", medianMs}, {"p90_ms", medianMs}, {"spread", spread}, {"runs", 30}, {"stable", true}};
}

struct TimedConfig {
  std::string name;
  double candidateMs, baselineMs;
  double spread = 0.0;
  std::optional<double> eagerMs; // pytorch-to-cuda
};

inline Json evalResult(const std::vector<TimedConfig> &configs, const std::string &outcome = "ok") {
  Json doc = {{"schema", "cudaperf-eval-result/1"}, {"task", "toy"}, {"task_dir", "/abs/data/tasks/toy"},
              {"candidate", "cand.cu"}, {"candidate_sha256", "abc"}, {"outcome", outcome}, {"detail", ""},
              {"compile", {{"ok", true}, {"log", ""}}}, {"compile_only", false},
              {"gpu", {{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"arch", "sm_90"}}},
              {"configs", Json::array()}};
  for (const TimedConfig &c : configs) {
    Json j = {{"name", c.name}, {"params", {{"n", 1}}},
              {"correctness", {{"pass", outcome == "ok"}, {"checks", Json::array()}}},
              {"baseline", timing(c.baselineMs, c.spread)}, {"candidate", timing(c.candidateMs, c.spread)}};
    if (c.eagerMs) {
      j["pytorch_eager"] = timing(*c.eagerMs, c.spread);
      j["speedup"] = *c.eagerMs / c.candidateMs;
    } else {
      j["speedup"] = c.baselineMs / c.candidateMs;
    }
    doc["configs"].push_back(j);
  }
  return doc;
}

inline Json compileOnlyResult() {
  return {{"schema", "cudaperf-eval-result/1"}, {"task", "toy"}, {"candidate", "cand.cu"},
          {"candidate_sha256", "abc"}, {"outcome", "ok"}, {"detail", "compiled"},
          {"compile", {{"ok", true}, {"log", ""}}}, {"compile_only", true}};
}

inline cudaperf::reward::RewardDocument rewardOf(const cudaperf::reward::RewardConfig &config, const Json &result,
                                               const std::optional<Json> &analysisDoc = std::nullopt,
                                               const std::optional<Json> &baselineDoc = std::nullopt,
                                               std::optional<double> ranking = std::nullopt) {
  namespace cf = cudaperf::features;
  std::optional<cf::AnalysisDocument> a, b;
  if (analysisDoc)
    a = cf::readAnalysis(*analysisDoc, "analysis.json");
  if (baselineDoc)
    b = cf::readAnalysis(*baselineDoc, "baseline.json");
  return cudaperf::reward::rewardFromDocuments(config, result, "result.json", a, b, ranking,
                                               analysisDoc ? "" : "no analysis in this test")
      .reward;
}

} // namespace rewardtest

namespace cudaperf::reward {
// gtest prints a gate by its name.
inline void PrintTo(Gate gate, std::ostream *os) { *os << gateName(gate); }
} // namespace cudaperf::reward
