// Multi-turn refinement (docs/reward.md, "Trajectories"): per-turn rewards after the repeat and
// regression rules, and each turn's discounted return over the later turns,
//   G_t = r_t + γ r_{t+1} + γ² r_{t+2} + ...   (γ = trajectory.gamma, 0.4 by default).
// Rules, applied in turn order:
//   repeat      a candidate with the same SHA-256 as an earlier turn's earns min(that turn's reward,
//               trajectory.repeat_ceiling): resubmitting gains nothing;
//   regression  trajectory.regression_penalty is subtracted from a correct turn whose speed term
//               is below the best earlier correct turn's (beyond the tie tolerance), and from a
//               turn that fails after an earlier correct one.
// A turn without a reward (internal_error) keeps a null reward and a null return, and counts as 0
// in the returns of the turns before it.
#pragma once

#include "cudaperf/Reward/Reward.h"
#include "cudaperf/Reward/RewardConfig.h"
#include "cudaperf/Support/Json.h"

#include <optional>
#include <string>
#include <vector>

namespace cudaperf::reward {

struct TurnInput {
  std::string sourceSha256;
  std::optional<double> reward; // the turn's own total (null: excluded)
  bool correct = false;         // passed every gate
  std::optional<double> speed;  // the speed term's value (-1..1), when correct and timed
};

// What a reward document says about its turn.
TurnInput turnFrom(const RewardDocument &doc);

struct TurnReward {
  std::optional<double> ownReward, reward, discountedReturn;
  std::string rule;   // "", "repeat", "regression"
  std::string reason; // "same source as turn 1", ...
};

std::vector<TurnReward> scoreTrajectory(const RewardConfig &config, const std::vector<TurnInput> &turns);
support::Json trajectoryToJson(const RewardConfig &config, const std::vector<TurnReward> &turns);

} // namespace cudaperf::reward
