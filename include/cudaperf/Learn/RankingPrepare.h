// Ranking-data preparation (cudaperf-rank prepare and score; no LibTorch): turning measured implementations (the generated
// dataset's, the shipped tasks') and unmeasured candidates into ranking examples. Each candidate is
// analysed once by `cudaperf-analyze --task` (cached by the SHA-256 of task.json, the source and the
// analyzer binary's name, size and time), its lib/Features vectors are joined with its eval result, and the baselines' inputs are
// computed beside: the analyzer's roofline time and the reward's static-only score per configuration.
#pragma once

#include "cudaperf/Learn/RankingData.h"

#include <functional>
#include <string>
#include <vector>

namespace cudaperf::learn::rank {

struct PrepareOptions {
  std::string analyzerPath;  // default: cudaperf-analyze beside this program, then PATH
  std::string cacheDir;      // analysis documents; empty: no cache
  int jobs = 2;
  double analyzerTimeoutSeconds = 600;
  std::function<void(const std::string &)> progress;
};

// What prepare did, for its summary line (and the evaluation's provenance).
struct PrepareReport {
  size_t results = 0, candidates = 0, examples = 0, analysed = 0, cached = 0;
  size_t unmatched = 0, duplicates = 0, failed = 0;
  std::vector<std::string> problems; // one line per skipped candidate (first ones)
};

// The generated dataset (DIR with manifest.jsonl, dataset.json) and cudaperf-eval result files
// whose records carry dataset_task and dataset_impl (.jsonl or .jsonl.zst). A record whose source
// differs from the generated file (another seed or generator) is skipped and counted.
std::vector<learn::RankExample> prepareDataset(const std::string &datasetDir, const std::vector<std::string> &resultFiles,
                                               const PrepareOptions &options, PrepareReport &report);

// Task folders below `tasksRoot` (data/tasks: */task.json and pytorch/*/task.json) with results
// matched to impls/*.cu by the SHA-256 the result records.
std::vector<learn::RankExample> prepareShipped(const std::string &tasksRoot, const std::vector<std::string> &resultFiles,
                                               const PrepareOptions &options, PrepareReport &report);

// Candidates that were not run (cudaperf-rank score): examples without a measurement.
std::vector<learn::RankExample> prepareCandidates(const std::string &taskDir, const std::vector<std::string> &candidates,
                                                  const PrepareOptions &options);

// The model's inputs among lib/Features' configuration features: the analysis's, and with
// `counters` the counters' too (except measured_total_duration_us, which is the label). Nothing
// from the eval result (time, speedup, outcome) is an input. With `staticScore` also the reward's
// static score at the configuration (learn::kStaticScoreInput), which prepare computes from the same
// analysis.
std::vector<std::string> rankInputFeatures(bool counters, bool staticScore = false);
bool isCounterFeature(const std::string &name);
// Whether a feature is a magnitude (log-scaled) rather than a fraction or a flag.
bool rankFeatureIsMagnitude(const std::string &name);

// Implementation sources of the dataset's training split (held-out families excluded): the
// tokenizer's corpus. At most `limit` files, spread evenly over the tasks.
std::vector<std::string> trainingSources(const std::string &datasetDir, size_t limit);

} // namespace cudaperf::learn::rank
