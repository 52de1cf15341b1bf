// A candidate's features at each configuration of its task: the analyzer's `--task` document
// (run as a subprocess, or read from a file), joined to the eval result when there is one, turned
// into one record per candidate × configuration (the configuration's vector and its launches'
// vectors, docs/features.md). What `cudaperf-features` prints; the reward and ranking tools call
// computeFeatures directly.
#pragma once

#include "cudaperf/Features/AnalysisDocument.h"
#include "cudaperf/Features/EvalDocument.h"
#include "cudaperf/Features/FeatureVector.h"
#include "cudaperf/Features/Join.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::features {

struct ConfigurationRecord {
  const ConfigurationAnalysis *analysis = nullptr;
  const EvalConfiguration *measured = nullptr; // null without a result or when it lacks the configuration
  JoinReport join;
  std::vector<FeatureValues> launchFeatures; // per launch, in order
  FeatureValues features;
};

// Owns the documents the records point into; not copyable, so the pointers stay valid.
class FeatureSet {
public:
  // Computes the records of every configuration ("all") or of one; throws FeaturesError when the
  // document has no `task` (not a --task document) or lacks the named configuration.
  FeatureSet(AnalysisDocument analysis, std::optional<EvalResult> result, const std::string &configuration = "all");
  FeatureSet(const FeatureSet &) = delete;
  FeatureSet &operator=(const FeatureSet &) = delete;

  const AnalysisDocument &analysis() const { return *analysis_; }
  const EvalResult *result() const { return result_.get(); }
  const std::vector<ConfigurationRecord> &records() const { return records_; }

  // One JSON Lines record (schema cudaperf-features/1).
  support::Json recordJson(const ConfigurationRecord &record) const;

private:
  std::unique_ptr<AnalysisDocument> analysis_;
  std::unique_ptr<EvalResult> result_;
  std::vector<ConfigurationRecord> records_;
};

struct FeatureRequest {
  std::string taskDir, candidatePath;
  std::string configuration = "all";
  std::string analysisPath;  // read this --task document instead of running the analyzer
  std::string resultPath;    // eval result(s); the candidate's is picked by its SHA-256
  std::string analyzerPath;  // default: cudaperf-analyze beside this program, then PATH
  std::string saveAnalysisPath; // when the analyzer runs: its document, as printed, is also written here
  std::vector<std::string> analyzerFlags; // after "--"
  double analyzerTimeoutSeconds = 600;
};

// Runs `cudaperf-analyze --task` (or reads request.analysisPath), reads the result, computes.
// Throws FeaturesError: the analyzer failed (its stderr in the message), a document is unreadable,
// the result file has no result for this candidate, saveAnalysisPath cannot be written.
std::unique_ptr<FeatureSet> computeFeatures(const FeatureRequest &request);

// The result among `results` that belongs to the candidate at `candidatePath` (same SHA-256 of
// the file, or the only result when the file has no hash recorded); throws FeaturesError.
EvalResult selectResult(std::vector<EvalResult> results, const std::string &candidatePath);

} // namespace cudaperf::features
