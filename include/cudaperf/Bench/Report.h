// cudaperf-bench's outputs: bench.json (schema cudaperf-bench/1), bench.md and two plots written
// as SVG (the fast_p curve over p and the distribution of speedups), from one BenchReport.
#pragma once

#include "cudaperf/Bench/Aggregate.h"
#include "cudaperf/Bench/Candidates.h"
#include "cudaperf/Bench/EvalResults.h"
#include "cudaperf/Bench/Scoring.h"
#include "cudaperf/Bench/Suite.h"


#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::bench {

struct BenchReport {
  const Suite *suite = nullptr;
  std::string candidatesDir;           // "" with --results
  std::string resultsPath;             // the cudaperf-eval results scored
  std::vector<std::string> evalCommand; // how they were produced, when the bench ran it
  int samples = 0, turns = 0;
  std::vector<std::string> notes;      // skipped files, missing references, ...
  AggregateOptions options;
  std::vector<CandidateScore> scores;
  std::map<std::string, std::vector<Reference>> references; // per task
  std::map<std::string, std::optional<TorchTimings>> torch;  // per pytorch-to-cuda task
  std::vector<EvalResult> results;
  std::vector<Aggregate> perTurn; // turns 1..T; the last is the headline
};

// Fills perTurn (and the references/scores' defaults) from the rest.
void computeAggregates(BenchReport &report);

support::Json benchJson(const BenchReport &report);
std::string benchMarkdown(const BenchReport &report);
std::string fastPCurveSvg(const BenchReport &report);
std::string speedupHistogramSvg(const BenchReport &report);

// What the timings rest on, with the evidence the results carry (which conventions were used).
support::Json timingConventions(const BenchReport &report);

constexpr const char *kBenchSchema = "cudaperf-bench/1";

} // namespace cudaperf::bench
