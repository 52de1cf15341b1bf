#include "cudaperf/Runtime/CountersMode.h"

#include "cudaperf/Support/Error.h"

namespace cudaperf::runtime {

const char *countersModeName(CountersMode mode) {
  switch (mode) {
  case CountersMode::Shared: return "shared";
  case CountersMode::Joint: return "joint";
  case CountersMode::PerConfig: break;
  }
  return "per-config";
}

CountersMode parseCountersMode(const std::string &text) {
  if (text == "per-config")
    return CountersMode::PerConfig;
  if (text == "shared")
    return CountersMode::Shared;
  if (text == "joint")
    return CountersMode::Joint;
  throw support::SupportError("expected per-config, shared or joint, got '" + text + "'");
}

std::vector<std::string> workerCounterArgs(bool counters, CountersMode mode) {
  if (!counters)
    return {};
  return {"--counters", "--counters-mode", countersModeName(mode)};
}

CounterSessionPlan counterSessionPlan(CountersMode mode, size_t config, size_t configs) {
  CounterSessionPlan plan;
  if (mode == CountersMode::PerConfig || config >= configs)
    return plan;
  plan.reusesSetUp = config > 0;
  plan.keepsSetUp = config + 1 < configs;
  return plan;
}

std::string countersModeRecorded(CountersMode mode) {
  return mode == CountersMode::PerConfig ? "" : countersModeName(mode);
}

} // namespace cudaperf::runtime
