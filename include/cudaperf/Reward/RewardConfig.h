// The reward's weights, caps and gate values (docs/reward.md; data/reward/default.json is
// defaults() written out). A config file may give any subset of the keys; absent keys keep their
// defaults, unknown keys are errors (a typo must not silently keep a default). A config whose gates
// break the ordering the reward promises (a hack below every honest failure, a candidate that
// compiles above one that does not, every correct candidate above every failure) is refused.
#pragma once

#include "cudaperf/Support/Json.h"

#include <map>
#include <string>

namespace cudaperf::reward {

constexpr const char *kRewardConfigSchema = "cudaperf-reward-config/1";

// Fixed rewards of the candidates that did not pass. internal_error has none: it is not the
// candidate's fault, its reward is null and the document says to exclude it from training.
struct GateRewards {
  double compileError = -0.8;
  double launchError = -0.6;
  double runtimeFault = -0.6;
  double timeout = -0.6;
  double wrongAnswer = -0.5;
  // Hacks: work hidden from the timed stream (timing_violation), a modified input, results
  // reused from an earlier call (stale_results).
  double timingViolation = -1.0;
  double modifiedInput = -1.0;
  double staleResults = -1.0;
  // Static-only gates (nothing runs, docs/reward.md): an entry point that launches no kernel, or
  // whose kernels store nothing to global memory, would leave its poisoned outputs unwritten: the
  // wrong answer it would be if run. A completion with no code block to extract has nothing to
  // compile: what a compile error earns.
  double noWork = -0.5;
  double noCodeBlock = -0.8;
};

struct SpeedupConfig {
  double weight = 1.0;
  // value = clamp(ln(speedup) / ln(cap), -1, 1), each configuration capped before aggregation.
  double cap = 10.0;
  // pytorch-to-cuda tasks: the share of the weight earned against PyTorch eager; the rest against
  // the task's baseline.cu.
  double eagerShare = 0.75;
  // A configuration is a tie (speedup 1) when |ln s| <= max(tieMinLog, tieSpreadFactor *
  // hypot(candidate spread, reference spread)).
  double tieSpreadFactor = 0.5;
  double tieMinLog = 0.01;
  // Weights of the geometric mean over configurations: by name, defaultConfigurationWeight else.
  double defaultConfigurationWeight = 1.0;
  std::map<std::string, double> configurationWeights;

  double configurationWeight(const std::string &name) const;
};

struct StructuralConfig {
  // Weights of the static terms, each valued 0..1 (1 = ideal).
  double coalescing = 0.04;
  double bankConflicts = 0.025;
  double occupancy = 0.035;
  double roofline = 0.05;
  // Penalties (subtracted) for barrier hazards at any launch of a configuration.
  double divergentBarrierPenalty = 0.2;
  double missingBarrierPenalty = 0.2;
  // Occupancy (resident warps / warp slots, times the grid's wave efficiency) at which a launch
  // stops gaining from more warps, by the launch's roofline bound.
  double neededOccupancyMemory = 0.5;
  double neededOccupancyCompute = 0.25;
  // Roofline fractions are scored on a log scale: 1 at the roofline, 0 at 10^-decades of it.
  double rooflineDecades = 3.0;
};

struct CounterConfig {
  double sectors = 0.025;           // ideal over measured global sectors per request
  double achievedOccupancy = 0.025; // measured achieved occupancy over what the launch needs
  double achievedRoofline = 0.05;   // measured roofline time over the measured median
};

struct LearnedConfig {
  double weight = 0.04; // the ranking model's score (docs/reward.md, "learned.weight": worth a measured 1.10x at most)
  double scale = 1.0;  // value = tanh(score / scale)
};

// --static-only (compile + analysis, nothing timed): the base of a candidate that compiles and
// the weight of the static model's predicted speedup over the task's baseline.
struct StaticOnlyConfig {
  double compiled = 0.5;
  double predictedSpeedup = 0.5;
};

// Constants of the static time model (lib/Reward/StaticModel.cpp).
struct StaticModelConfig {
  double launchOverheadUs = 3.4;       // one launch, as the evaluator times a call
  double sameAddressAtomicNs = 1.756;  // per thread-level atomic on one address (serialized)
  double sharedBytesPerCyclePerSM = 128; // 32 banks x 4 bytes
  double smClockGHz = 1.98;
};

struct TrajectoryConfig {
  double gamma = 0.4;
  // Subtracted from a correct turn slower (beyond a tie) than the best earlier correct turn,
  // and from a failing turn after an earlier correct one.
  double regressionPenalty = 0.1;
  // A turn that repeats an earlier candidate (same SHA-256) earns min(earlier reward, this).
  double repeatCeiling = 0.0;
};

struct FeedbackConfig {
  int maxChars = 1500;
  int maxFindings = 3;
  int maxCompileErrors = 3;
};

struct RewardConfig {
  std::string name = "default";
  std::string source = "built-in defaults"; // where it was read from, for messages
  double correct = 1.0; // base reward of a correct, honestly timed candidate
  GateRewards gates;
  SpeedupConfig speedup;
  StructuralConfig structural;
  CounterConfig counters;
  LearnedConfig learned;
  StaticOnlyConfig staticOnly;
  StaticModelConfig staticModel;
  TrajectoryConfig trajectory;
  FeedbackConfig feedback;

  // The lowest total a correct candidate can reach (every term at its worst), with and without
  // measured times; checked against the gates by validateRewardConfig.
  double lowestCorrectTotal() const;
  double lowestStaticOnlyTotal() const;
  // The highest static-only total (every term at its best, the learned term included).
  double highestStaticOnlyTotal() const;
  // The highest gate of a candidate that was not caught hacking: compile_error, launch_error,
  // runtime_fault, timeout, wrong_answer, no_work, no_code_block.
  double highestFailureGate() const;
};

// Where a provisional reward (static-only: correctness unknown) is put: the static-only total's
// range [lowestStaticOnlyTotal, highestStaticOnlyTotal] mapped linearly onto the middle half of
// the gap between the highest failure gate and the lowest total a correct candidate can reach, so
// a candidate of unknown correctness ranks below every correct one and above every known failure,
// a quarter of the gap from each (docs/reward.md, "Static-only rewards are provisional").
struct ProvisionalBand {
  double floor = 0, ceiling = 0;       // highestFailureGate(), lowestCorrectTotal()
  double lowest = 0, highest = 0;      // what a provisional total can be: floor + gap/4, ceiling - gap/4
  double rawLowest = 0, rawHighest = 0; // the static-only totals mapped onto them
  double map(double rawTotal) const;
};
ProvisionalBand provisionalBand(const RewardConfig &config);

// Throws RewardError naming `source`, the key path and the value.
RewardConfig parseRewardConfig(const support::Json &doc, const std::string &source);
RewardConfig loadRewardConfig(const std::string &path);
// Every key with its value, in the file's order (data/reward/default.json is toJson(defaults)).
support::Json rewardConfigToJson(const RewardConfig &config);
// SHA-256 of the config's JSON (name and source left out): recorded in every reward document.
std::string rewardConfigDigest(const RewardConfig &config);
// The ordering rules; throws RewardError naming the first broken one.
void validateRewardConfig(const RewardConfig &config);

} // namespace cudaperf::reward
