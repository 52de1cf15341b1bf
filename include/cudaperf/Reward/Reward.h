// The unified reward (docs/reward.md): a pure function of the reward config, the candidate's static
// report at each timed configuration (cudaperf-analyze --task, through lib/Features), its eval
// result with counters, and optionally the ranking model's score. The document it returns
// (`cudaperf-reward/1`) has the total, every term with the inputs it used and its weight, and the
// gate that applied; its wire format is schema::RewardDocument (include/cudaperf/Schema/RewardDocument.h),
// which rewardToJson fills.
#pragma once

#include "cudaperf/Features/Features.h"
#include "cudaperf/Reward/EvalDetails.h"
#include "cudaperf/Reward/RewardConfig.h"
#include "cudaperf/Reward/StaticModel.h"
#include "cudaperf/Schema/Outcome.h"
#include "cudaperf/Schema/RewardDocument.h"
#include "cudaperf/Support/Json.h"

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::reward {

using schema::kRewardSchema;

struct RewardInputs {
  // The eval result (required): its typed form and the document it was read from.
  const features::EvalResult *result = nullptr;
  const support::Json *resultJson = nullptr;
  // The candidate's --task analysis joined with the result; null when the analyzer failed or was
  // not run (analysisError says why): the static terms are then missing.
  const features::FeatureSet *analysis = nullptr;
  std::string analysisError;
  // The task's impls/baseline.cu analysed the same way: the static-only predicted speedup.
  const features::FeatureSet *baselineAnalysis = nullptr;
  std::optional<double> rankingScore;
};

// One term of the document: name, group, value (null: unknown, then neutral), weight, contribution
// (what it adds to the total), missing (why value is unknown), inputs.
using RewardTerm = schema::RewardTerm;

// One configuration as the reward saw it.
struct ConfigurationReward {
  std::string name;
  double weight = 1;
  std::vector<std::pair<std::string, double>> params;
  std::optional<bool> correct;
  // Measured speed: against the reference the result's `speedup` names (baseline, or PyTorch
  // eager), and against baseline.cu separately for pytorch-to-cuda tasks.
  std::optional<double> speedup, speedupVsBaseline;
  bool tie = false, tieVsBaseline = false;
  double tieBand = 0, tieBandVsBaseline = 0; // in ln units
  std::optional<double> candidateMedianMs, candidateSpread;
  // Static side.
  std::optional<ConfigurationModel> model;
  std::optional<double> predictedSpeedup;     // baseline's modeled time over the candidate's
  std::optional<double> predictedSectorsPerRequest, idealSectorsPerRequest;
  // Measured counters (when collected).
  bool countersMeasured = false;
  std::optional<double> measuredSectorsPerRequest, achievedOccupancy, achievedRooflineFraction;
  std::optional<double> predictedOccupancy;
};

// The hack or honest failure a result is gated as (docs/reward.md), below every correct candidate.
enum class Gate {
  CompileError,
  LaunchError,
  RuntimeFault,
  Timeout,
  WrongAnswer,
  TimingViolation,
  ModifiedInput, // wrong answer, and a check saw an input modified
  StaleResults,  // wrong answer, correct on the first call of every configuration only
  NoWork,        // static-only: the entry point writes no output
  NoCodeBlock,   // the completion has no code to compile
  InternalError, // not the candidate's fault: no reward, left out of the batch
};

// The gate's name in the reward document, the feedback and the config's `gates` keys
// ("compile_error", ...); the gates named after an outcome spell it as schema::outcomeName does.
const char *gateName(Gate gate);

struct RewardDocument {
  std::string task, taskKind, candidate, candidateSha256, detail;
  // The eval result's outcome; none where no candidate was evaluated (the gate no_code_block).
  std::optional<schema::Outcome> outcome;
  // The result's outcome name where this build does not know it (a newer evaluator's, or a forged
  // result's): `outcome` is then InternalError, as schema::EvalResult reads it. Written as it was.
  std::string unknownOutcome;
  std::string mode; // "measured" or "static-only"
  std::optional<Gate> gate; // none when the candidate passed every gate
  std::string gateReason;
  std::optional<double> total; // null for internal_error
  bool exclude = false;        // leave out of the training batch (internal_error)
  // Static-only and not gated: nothing ran, so correctness is unknown; the total is mapped into
  // the provisional band (RewardConfig.h), below every correct candidate's.
  bool provisional = false;
  std::string excludeReason;
  std::vector<RewardTerm> terms;
  std::vector<ConfigurationReward> configurations;
  std::vector<std::string> warnings;
  std::string configName, configDigest;
  std::string analysisError;
  EvalDetails details; // what the feedback quotes: checks, compile log
  std::string feedback; // filled by the caller (Feedback.h), written when not empty

  const RewardTerm *term(const std::string &name) const;
  // The document's "outcome": unknownOutcome when set, else the outcome's wire name, else (nothing
  // evaluated) the gate's name ("no_code_block").
  std::string outcomeText() const;
};

// Throws RewardError when the inputs are inconsistent (no result, a result of another candidate).
RewardDocument computeReward(const RewardConfig &config, const RewardInputs &inputs);
// The document as it is written (`cudaperf-reward/1`), and its JSON.
schema::RewardDocument rewardSchemaDocument(const RewardDocument &doc);
support::Json rewardToJson(const RewardDocument &doc);

// The gate a result falls under: none for ok, else one of compile_error, launch_error,
// runtime_fault, timeout, wrong_answer, timing_violation, modified_input, stale_results,
// internal_error. `reason` gets the evidence.
std::optional<Gate> gateOf(const features::EvalResult &result, const EvalDetails &details, std::string &reason);
double gateReward(const RewardConfig &config, Gate gate); // NaN for internal_error

// Static-only: the evidence that the entry point does no work (the gate `no_work`): at every
// configuration the analyzer followed the entry point to its end and found no kernel launch, or
// only launches of kernels it analysed whose stores and atomics are all to shared or local
// memory. Device copies and memsets are not in the report and do not count. "" when it does
// work or the analysis cannot tell (an unknown kernel, launches not followed to the end).
std::string noWorkEvidence(const features::AnalysisDocument &analysis);

} // namespace cudaperf::reward
