#include "cudaperf/Runtime/CountersMode.h"

#include "cudaperf/Support/Error.h"

#include <algorithm>

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

size_t parseCounterRanges(const std::string &text) {
  if (text == "auto")
    return kCounterRangesAuto;
  size_t n = 0;
  bool digits = !text.empty() && text.size() <= 6;
  for (char ch : text) {
    if (ch < '0' || ch > '9') {
      digits = false;
      break;
    }
    n = n * 10 + size_t(ch - '0');
  }
  if (!digits || n < 1 || n > kCounterRangesMax)
    throw support::SupportError("expected auto or a number of ranges from 1 to " + std::to_string(kCounterRangesMax) +
                                ", got '" + text + "'");
  return n;
}

size_t counterRanges(size_t option, const std::vector<int> &auditedLaunches) {
  if (option != kCounterRangesAuto)
    return option;
  if (auditedLaunches.empty())
    return kCounterRangesFallback;
  size_t most = 0;
  for (int k : auditedLaunches)
    most = std::max(most, size_t(std::max(k, 0)));
  return std::min(kCounterRangesMax, std::max<size_t>(16, 2 * most + 8));
}

std::vector<std::string> workerCounterArgs(bool counters, CountersMode mode, size_t ranges) {
  if (!counters)
    return {};
  std::vector<std::string> args = {"--counters", "--counters-mode", countersModeName(mode)};
  if (ranges != kCounterRangesDefault)
    args.insert(args.end(), {"--counters-ranges", ranges == kCounterRangesAuto ? "auto" : std::to_string(ranges)});
  return args;
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
