#include "cudaperf/Reward/Trajectory.h"

#include <algorithm>
#include <cmath>

namespace cudaperf::reward {

using support::Json;

TurnInput turnFrom(const RewardDocument &doc) {
  TurnInput t;
  t.sourceSha256 = doc.candidateSha256;
  t.reward = doc.total;
  t.correct = !doc.gate && doc.total.has_value();
  if (const RewardTerm *speed = doc.term(doc.mode == "static-only" ? "predicted_speedup" : "speedup"))
    t.speed = speed->value;
  return t;
}

std::vector<TurnReward> scoreTrajectory(const RewardConfig &config, const std::vector<TurnInput> &turns) {
  const TrajectoryConfig &tc = config.trajectory;
  // Speeds closer than the smallest tie band are the same speed.
  double tolerance = config.speedup.tieMinLog / std::log(config.speedup.cap);
  std::vector<TurnReward> out(turns.size());
  std::optional<double> bestSpeed;
  std::optional<size_t> bestTurn;
  bool earlierCorrect = false;
  for (size_t i = 0; i < turns.size(); ++i) {
    const TurnInput &t = turns[i];
    TurnReward &r = out[i];
    r.ownReward = t.reward;
    r.reward = t.reward;
    if (!t.reward)
      continue;
    for (size_t j = 0; j < i; ++j)
      if (!t.sourceSha256.empty() && turns[j].sourceSha256 == t.sourceSha256 && out[j].reward) {
        r.reward = std::min(*out[j].reward, tc.repeatCeiling);
        r.rule = "repeat";
        r.reason = "same source as turn " + std::to_string(j + 1);
        break;
      }
    if (r.rule.empty() && earlierCorrect) {
      if (!t.correct) {
        r.reward = *r.reward - tc.regressionPenalty;
        r.rule = "regression";
        r.reason = "fails after turn " + std::to_string(*bestTurn + 1) + " was correct";
      } else if (t.speed && bestSpeed && *t.speed < *bestSpeed - tolerance) {
        r.reward = *r.reward - tc.regressionPenalty;
        r.rule = "regression";
        r.reason = "slower than turn " + std::to_string(*bestTurn + 1);
      }
    }
    if (t.correct) {
      if (!earlierCorrect || (t.speed && (!bestSpeed || *t.speed > *bestSpeed))) {
        bestSpeed = t.speed;
        bestTurn = i;
      }
      earlierCorrect = true;
    }
  }
  double later = 0;
  for (size_t i = out.size(); i-- > 0;) {
    double own = out[i].reward.value_or(0);
    later = own + tc.gamma * later;
    if (out[i].reward)
      out[i].discountedReturn = later;
  }
  return out;
}

Json trajectoryToJson(const RewardConfig &config, const std::vector<TurnReward> &turns) {
  Json j = Json::object();
  j["gamma"] = config.trajectory.gamma;
  Json list = Json::array();
  for (size_t i = 0; i < turns.size(); ++i) {
    const TurnReward &t = turns[i];
    Json tj = Json::object();
    tj["turn"] = i + 1;
    tj["own_reward"] = t.ownReward ? Json(*t.ownReward) : Json(nullptr);
    tj["reward"] = t.reward ? Json(*t.reward) : Json(nullptr);
    tj["return"] = t.discountedReturn ? Json(*t.discountedReturn) : Json(nullptr);
    tj["rule"] = t.rule.empty() ? Json(nullptr) : Json(t.rule);
    if (!t.reason.empty())
      tj["reason"] = t.reason;
    list.push_back(std::move(tj));
  }
  j["turns"] = std::move(list);
  return j;
}

} // namespace cudaperf::reward
