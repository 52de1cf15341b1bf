#include "cudaperf/Reward/RewardConfig.h"
#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Support/JsonReader.h"
#include "cudaperf/Support/Sha256.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

namespace cudaperf::reward {

using support::Json;
using support::JsonField;

double SpeedupConfig::configurationWeight(const std::string &name) const {
  auto it = configurationWeights.find(name);
  return it == configurationWeights.end() ? defaultConfigurationWeight : it->second;
}

double RewardConfig::lowestCorrectTotal() const {
  return correct - speedup.weight - structural.divergentBarrierPenalty - structural.missingBarrierPenalty -
         learned.weight;
}

double RewardConfig::lowestStaticOnlyTotal() const {
  return staticOnly.compiled - staticOnly.predictedSpeedup - structural.divergentBarrierPenalty -
         structural.missingBarrierPenalty - learned.weight;
}

double RewardConfig::highestStaticOnlyTotal() const {
  return staticOnly.compiled + staticOnly.predictedSpeedup + structural.coalescing + structural.bankConflicts +
         structural.occupancy + structural.roofline + learned.weight;
}

double RewardConfig::highestFailureGate() const {
  return std::max({gates.compileError, gates.launchError, gates.runtimeFault, gates.timeout, gates.wrongAnswer,
                   gates.noWork, gates.noCodeBlock});
}

ProvisionalBand provisionalBand(const RewardConfig &config) {
  ProvisionalBand b;
  b.floor = config.highestFailureGate();
  b.ceiling = config.lowestCorrectTotal();
  double gap = b.ceiling - b.floor;
  b.lowest = b.floor + gap / 4;
  b.highest = b.ceiling - gap / 4;
  b.rawLowest = config.lowestStaticOnlyTotal();
  b.rawHighest = config.highestStaticOnlyTotal();
  return b;
}

double ProvisionalBand::map(double rawTotal) const {
  double span = rawHighest - rawLowest;
  double f = span > 0 ? (rawTotal - rawLowest) / span : 0.5;
  f = std::max(0.0, std::min(1.0, f)); // a total outside the range cannot happen; clamp all the same
  return lowest + f * (highest - lowest);
}

namespace {

// One numeric key of the file: section ("" for the top level), key, the field it sets, and the
// smallest value that makes sense. Parsing and writing walk the same table.
struct NumberKey {
  const char *section;
  const char *key;
  std::function<double &(RewardConfig &)> field;
  double min;
  bool integer = false;
};

constexpr double kAny = -1e300;

const std::vector<NumberKey> &numberKeys() {
  static const std::vector<NumberKey> keys = {
      {"", "correct", [](RewardConfig &c) -> double & { return c.correct; }, kAny},
      {"gates", "compile_error", [](RewardConfig &c) -> double & { return c.gates.compileError; }, kAny},
      {"gates", "launch_error", [](RewardConfig &c) -> double & { return c.gates.launchError; }, kAny},
      {"gates", "runtime_fault", [](RewardConfig &c) -> double & { return c.gates.runtimeFault; }, kAny},
      {"gates", "timeout", [](RewardConfig &c) -> double & { return c.gates.timeout; }, kAny},
      {"gates", "wrong_answer", [](RewardConfig &c) -> double & { return c.gates.wrongAnswer; }, kAny},
      {"gates", "timing_violation", [](RewardConfig &c) -> double & { return c.gates.timingViolation; }, kAny},
      {"gates", "modified_input", [](RewardConfig &c) -> double & { return c.gates.modifiedInput; }, kAny},
      {"gates", "stale_results", [](RewardConfig &c) -> double & { return c.gates.staleResults; }, kAny},
      {"gates", "no_work", [](RewardConfig &c) -> double & { return c.gates.noWork; }, kAny},
      {"gates", "no_code_block", [](RewardConfig &c) -> double & { return c.gates.noCodeBlock; }, kAny},
      {"speedup", "weight", [](RewardConfig &c) -> double & { return c.speedup.weight; }, 0},
      {"speedup", "cap", [](RewardConfig &c) -> double & { return c.speedup.cap; }, 1.000001},
      {"speedup", "eager_share", [](RewardConfig &c) -> double & { return c.speedup.eagerShare; }, 0},
      {"speedup", "tie_spread_factor", [](RewardConfig &c) -> double & { return c.speedup.tieSpreadFactor; }, 0},
      {"speedup", "tie_min_log", [](RewardConfig &c) -> double & { return c.speedup.tieMinLog; }, 0},
      {"speedup", "default_configuration_weight",
       [](RewardConfig &c) -> double & { return c.speedup.defaultConfigurationWeight; }, 0},
      {"structural", "coalescing", [](RewardConfig &c) -> double & { return c.structural.coalescing; }, 0},
      {"structural", "bank_conflicts", [](RewardConfig &c) -> double & { return c.structural.bankConflicts; }, 0},
      {"structural", "occupancy", [](RewardConfig &c) -> double & { return c.structural.occupancy; }, 0},
      {"structural", "roofline", [](RewardConfig &c) -> double & { return c.structural.roofline; }, 0},
      {"structural", "divergent_barrier_penalty",
       [](RewardConfig &c) -> double & { return c.structural.divergentBarrierPenalty; }, 0},
      {"structural", "missing_barrier_penalty",
       [](RewardConfig &c) -> double & { return c.structural.missingBarrierPenalty; }, 0},
      {"structural", "needed_occupancy_memory",
       [](RewardConfig &c) -> double & { return c.structural.neededOccupancyMemory; }, 1e-6},
      {"structural", "needed_occupancy_compute",
       [](RewardConfig &c) -> double & { return c.structural.neededOccupancyCompute; }, 1e-6},
      {"structural", "roofline_decades", [](RewardConfig &c) -> double & { return c.structural.rooflineDecades; },
       0.1},
      {"counters", "sectors", [](RewardConfig &c) -> double & { return c.counters.sectors; }, 0},
      {"counters", "achieved_occupancy", [](RewardConfig &c) -> double & { return c.counters.achievedOccupancy; }, 0},
      {"counters", "achieved_roofline", [](RewardConfig &c) -> double & { return c.counters.achievedRoofline; }, 0},
      {"learned", "weight", [](RewardConfig &c) -> double & { return c.learned.weight; }, 0},
      {"learned", "scale", [](RewardConfig &c) -> double & { return c.learned.scale; }, 1e-9},
      {"static_only", "compiled", [](RewardConfig &c) -> double & { return c.staticOnly.compiled; }, kAny},
      {"static_only", "predicted_speedup", [](RewardConfig &c) -> double & { return c.staticOnly.predictedSpeedup; },
       0},
      {"static_model", "launch_overhead_us", [](RewardConfig &c) -> double & { return c.staticModel.launchOverheadUs; },
       0},
      {"static_model", "same_address_atomic_ns",
       [](RewardConfig &c) -> double & { return c.staticModel.sameAddressAtomicNs; }, 0},
      {"static_model", "shared_bytes_per_cycle_per_sm",
       [](RewardConfig &c) -> double & { return c.staticModel.sharedBytesPerCyclePerSM; }, 1},
      {"static_model", "sm_clock_ghz", [](RewardConfig &c) -> double & { return c.staticModel.smClockGHz; }, 0.01},
      {"trajectory", "gamma", [](RewardConfig &c) -> double & { return c.trajectory.gamma; }, 0},
      {"trajectory", "regression_penalty", [](RewardConfig &c) -> double & { return c.trajectory.regressionPenalty; },
       0},
      {"trajectory", "repeat_ceiling", [](RewardConfig &c) -> double & { return c.trajectory.repeatCeiling; }, kAny},
  };
  return keys;
}

struct IntegerKey {
  const char *section;
  const char *key;
  std::function<int &(RewardConfig &)> field;
  int min;
};

const std::vector<IntegerKey> &integerKeys() {
  static const std::vector<IntegerKey> keys = {
      {"feedback", "max_chars", [](RewardConfig &c) -> int & { return c.feedback.maxChars; }, 200},
      {"feedback", "max_findings", [](RewardConfig &c) -> int & { return c.feedback.maxFindings; }, 0},
      {"feedback", "max_compile_errors", [](RewardConfig &c) -> int & { return c.feedback.maxCompileErrors; }, 1},
  };
  return keys;
}

// Sections in the order the file lists them.
const std::vector<const char *> kSections = {"gates",      "speedup", "structural",   "counters",   "learned",
                                             "static_only", "static_model", "trajectory", "feedback"};

std::string knownKeys(const std::string &section) {
  std::string out;
  auto add = [&](const char *k) { out += (out.empty() ? "" : ", ") + std::string(k); };
  for (const NumberKey &k : numberKeys())
    if (section == k.section)
      add(k.key);
  for (const IntegerKey &k : integerKeys())
    if (section == k.section)
      add(k.key);
  if (section == "speedup")
    add("configuration_weights");
  if (section.empty()) {
    add("schema");
    add("name");
    for (const char *s : kSections)
      add(s);
  }
  return out;
}

void readSection(const JsonField &object, const std::string &section, RewardConfig &config) {
  if (!object.isObject())
    object.expected("an object");
  for (const auto &[key, value] : object.members()) {
    bool known = false;
    for (const NumberKey &k : numberKeys())
      if (section == k.section && key == k.key) {
        double v = value.number();
        if (!std::isfinite(v) || v < k.min)
          value.fail(!std::isfinite(v) ? "expected a finite number"
                                       : "must be at least " + std::to_string(k.min) + ", got " + std::to_string(v));
        k.field(config) = v;
        known = true;
      }
    for (const IntegerKey &k : integerKeys())
      if (section == k.section && key == k.key) {
        k.field(config) = int(value.integer(k.min, 1 << 20));
        known = true;
      }
    if (section == "speedup" && key == "configuration_weights") {
      config.speedup.configurationWeights.clear();
      for (const auto &[name, w] : value.members()) {
        double v = w.number();
        if (!std::isfinite(v) || v < 0)
          w.fail("expected a weight >= 0");
        config.speedup.configurationWeights[name] = v;
      }
      known = true;
    }
    if (section.empty() && (key == "schema" || key == "name")) {
      known = true;
      if (key == "schema" && value.string() != kRewardConfigSchema)
        value.fail(std::string("expected \"") + kRewardConfigSchema + "\", got \"" + value.string() + "\"");
      if (key == "name")
        config.name = value.string();
    }
    if (section.empty() && std::find_if(kSections.begin(), kSections.end(),
                                        [&](const char *s) { return key == s; }) != kSections.end()) {
      readSection(value, key, config);
      known = true;
    }
    if (!known)
      value.fail("unknown key (known here: " + knownKeys(section) + ")");
  }
}

} // namespace

RewardConfig parseRewardConfig(const Json &doc, const std::string &source) {
  RewardConfig config;
  config.source = source;
  try {
    readSection(JsonField(doc, source), "", config);
  } catch (const support::SupportError &e) {
    throw RewardError(e.what());
  }
  validateRewardConfig(config);
  return config;
}

RewardConfig loadRewardConfig(const std::string &path) {
  Json doc;
  try {
    doc = support::readJsonFile(path);
  } catch (const support::SupportError &e) {
    throw RewardError(e.what());
  }
  return parseRewardConfig(doc, path);
}

Json rewardConfigToJson(const RewardConfig &config) {
  RewardConfig copy = config; // the table's accessors take a mutable config
  Json j = Json::object();
  j["schema"] = kRewardConfigSchema;
  j["name"] = config.name;
  for (const NumberKey &k : numberKeys())
    if (std::string(k.section).empty())
      j[k.key] = k.field(copy);
  for (const char *section : kSections) {
    Json s = Json::object();
    for (const NumberKey &k : numberKeys())
      if (section == std::string(k.section))
        s[k.key] = k.field(copy);
    for (const IntegerKey &k : integerKeys())
      if (section == std::string(k.section))
        s[k.key] = k.field(copy);
    if (section == std::string("speedup")) {
      Json w = Json::object();
      for (const auto &[name, v] : config.speedup.configurationWeights)
        w[name] = v;
      s["configuration_weights"] = std::move(w);
    }
    j[section] = std::move(s);
  }
  return j;
}

std::string rewardConfigDigest(const RewardConfig &config) {
  Json j = rewardConfigToJson(config);
  j.erase("name");
  return support::sha256Hex(support::writeJson(j));
}

void validateRewardConfig(const RewardConfig &c) {
  const GateRewards &g = c.gates;
  auto fail = [&](const std::string &what) { throw RewardError(c.source + ": " + what); };
  struct Named {
    const char *name;
    double value;
  };
  const std::vector<Named> compiled = {{"launch_error", g.launchError},
                                       {"runtime_fault", g.runtimeFault},
                                       {"timeout", g.timeout},
                                       {"wrong_answer", g.wrongAnswer},
                                       {"no_work", g.noWork}};
  const std::vector<Named> hacks = {{"timing_violation", g.timingViolation},
                                    {"modified_input", g.modifiedInput},
                                    {"stale_results", g.staleResults}};
  for (const Named &n : compiled)
    if (!(n.value > g.compileError))
      fail(std::string("gates.") + n.name + " (" + std::to_string(n.value) +
           ") must be above gates.compile_error (" + std::to_string(g.compileError) +
           "): a candidate that compiles earns more than one that does not");
  for (const Named &h : hacks)
    if (!(h.value < g.compileError))
      fail(std::string("gates.") + h.name + " (" + std::to_string(h.value) +
           ") must be below every honest failure, gates.compile_error (" + std::to_string(g.compileError) +
           ") included");
  if (!(g.noCodeBlock <= g.compileError))
    fail("gates.no_code_block (" + std::to_string(g.noCodeBlock) + ") must not be above gates.compile_error (" +
         std::to_string(g.compileError) + "): a completion with nothing to compile earns no more than one that fails to");
  double highestFailure = c.highestFailureGate();
  if (!(c.lowestCorrectTotal() > highestFailure))
    fail("the lowest total of a correct candidate (correct - speedup.weight - barrier penalties - "
         "learned.weight = " + std::to_string(c.lowestCorrectTotal()) + ") must be above every failure gate (" +
         std::to_string(highestFailure) + ")");
  if (!(c.lowestStaticOnlyTotal() > g.compileError))
    fail("the lowest static-only total of a candidate that compiles (static_only.compiled - "
         "static_only.predicted_speedup - barrier penalties - learned.weight = " +
         std::to_string(c.lowestStaticOnlyTotal()) + ") must be above gates.compile_error (" +
         std::to_string(g.compileError) + ")");
  for (const Named &h : hacks)
    if (!(g.noCodeBlock - c.trajectory.regressionPenalty > h.value))
      fail("gates.no_code_block - trajectory.regression_penalty (" +
           std::to_string(g.noCodeBlock - c.trajectory.regressionPenalty) + ") must stay above gates." + h.name +
           " (" + std::to_string(h.value) + "): a regressing answer without code still earns more than a hack");
  for (const Named &h : hacks)
    if (!(g.compileError - c.trajectory.regressionPenalty > h.value))
      fail("gates.compile_error - trajectory.regression_penalty (" +
           std::to_string(g.compileError - c.trajectory.regressionPenalty) + ") must stay above gates." + h.name +
           " (" + std::to_string(h.value) + "): a regressing honest failure still earns more than a hack");
  if (c.speedup.eagerShare > 1)
    fail("speedup.eager_share must be within 0..1, got " + std::to_string(c.speedup.eagerShare));
  if (c.trajectory.gamma > 1)
    fail("trajectory.gamma must be within 0..1, got " + std::to_string(c.trajectory.gamma));
}

} // namespace cudaperf::reward
