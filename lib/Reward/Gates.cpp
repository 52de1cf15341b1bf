// Which gate a result falls under. The evaluator's outcome decides, except for two hacks that it
// reports as wrong answers and whose evidence is in the checks: an input the candidate modified,
// and results reused from an earlier call (correct on the first call of every configuration, wrong
// on a later call with new inputs).
#include "cudaperf/Reward/Reward.h"

#include <cmath>
#include <iterator>
#include <limits>

namespace cudaperf::reward {

namespace {

// Indexed by Gate.
constexpr const char *kGateNames[] = {"compile_error",    "launch_error",   "runtime_fault", "timeout",
                                      "wrong_answer",     "timing_violation", "modified_input", "stale_results",
                                      "no_work",          "no_code_block",  "internal_error"};
static_assert(std::size(kGateNames) == size_t(Gate::InternalError) + 1);

// The gate of an outcome that is not ok: the one of the same name.
Gate gateOfOutcome(schema::Outcome outcome) {
  switch (outcome) {
  case schema::Outcome::CompileError:
    return Gate::CompileError;
  case schema::Outcome::LaunchError:
    return Gate::LaunchError;
  case schema::Outcome::RuntimeFault:
    return Gate::RuntimeFault;
  case schema::Outcome::Timeout:
    return Gate::Timeout;
  case schema::Outcome::WrongAnswer:
    return Gate::WrongAnswer;
  case schema::Outcome::TimingViolation:
    return Gate::TimingViolation;
  case schema::Outcome::Ok:
  case schema::Outcome::InternalError:
    break;
  }
  return Gate::InternalError;
}

std::string modifiedInput(const EvalDetails &d) {
  for (const ConfigurationChecks &c : d.configs)
    for (const CorrectnessCheck &k : c.checks)
      if (!k.inputModified.empty())
        return k.inputModified + " (config " + c.name + ", set " + std::to_string(k.set) + ")";
  return "";
}

// A racy but honest kernel usually fails some first call too; a candidate that answers the first
// call of every configuration and then repeats itself is the cache hack of docs/eval-result.md.
std::string staleResults(const EvalDetails &d) {
  std::string evidence;
  bool anyChecks = false;
  for (const ConfigurationChecks &c : d.configs) {
    const CorrectnessCheck *first = nullptr;
    for (const CorrectnessCheck &k : c.checks)
      if (k.set == 0 && k.step == "correctness") {
        first = &k;
        break;
      }
    if (c.checks.empty())
      continue;
    anyChecks = true;
    if (!first || !first->pass)
      return "";
    for (const CorrectnessCheck &k : c.checks)
      if (!k.pass && evidence.empty())
        evidence = "correct on the first call of config " + c.name + ", wrong on " +
                   (k.step == "correctness" ? "input set " + std::to_string(k.set) : "the call after timing") +
                   (k.badElements ? " (" + std::to_string(*k.badElements) + " elements wrong)" : "");
  }
  return anyChecks ? evidence : "";
}

} // namespace

const char *gateName(Gate gate) {
  size_t i = size_t(gate);
  return i < std::size(kGateNames) ? kGateNames[i] : "internal_error";
}

std::optional<Gate> gateOf(const features::EvalResult &result, const EvalDetails &details, std::string &reason) {
  reason = result.detail;
  if (!result.unknownOutcome.empty()) {
    // An outcome this reward does not know (a newer evaluator): not the candidate's fault to prove.
    reason = "unknown outcome \"" + result.unknownOutcome + "\"" + (result.detail.empty() ? "" : ": " + result.detail);
    return Gate::InternalError;
  }
  if (result.outcome == schema::Outcome::Ok)
    return std::nullopt;
  if (result.outcome == schema::Outcome::WrongAnswer) {
    if (std::string m = modifiedInput(details); !m.empty()) {
      reason = m;
      return Gate::ModifiedInput;
    }
    if (std::string s = staleResults(details); !s.empty()) {
      reason = s;
      return Gate::StaleResults;
    }
  }
  return gateOfOutcome(result.outcome);
}

std::string noWorkEvidence(const features::AnalysisDocument &analysis) {
  if (analysis.configurations.empty())
    return "";
  size_t launches = 0;
  for (const features::ConfigurationAnalysis &c : analysis.configurations) {
    if (!c.entryFound || !c.launchesComplete)
      return "";
    for (const features::LaunchReport &l : c.launches) {
      const features::KernelReport *report = c.reportOf(l);
      if (!report)
        return ""; // a kernel the analyzer does not know may write anything
      ++launches;
      for (const features::AccessReport &a : report->accesses)
        if ((a.op == "store" || a.op == "atomic") && a.space != "shared" && a.space != "local")
          return ""; // global, generic (address space unknown) or surface: may reach an output
    }
  }
  if (launches == 0)
    return "the entry point launches no kernel at any configuration (the analyzer followed it to its end), so "
           "its outputs are never written";
  return "no kernel the entry point launches stores to global memory (" + std::to_string(launches) +
         " launches over " + std::to_string(analysis.configurations.size()) +
         " configurations, each analysed), so its outputs are never written";
}

double gateReward(const RewardConfig &config, Gate gate) {
  const GateRewards &g = config.gates;
  switch (gate) {
  case Gate::CompileError:
    return g.compileError;
  case Gate::LaunchError:
    return g.launchError;
  case Gate::RuntimeFault:
    return g.runtimeFault;
  case Gate::Timeout:
    return g.timeout;
  case Gate::WrongAnswer:
    return g.wrongAnswer;
  case Gate::TimingViolation:
    return g.timingViolation;
  case Gate::ModifiedInput:
    return g.modifiedInput;
  case Gate::StaleResults:
    return g.staleResults;
  case Gate::NoWork:
    return g.noWork;
  case Gate::NoCodeBlock:
    return g.noCodeBlock;
  case Gate::InternalError:
    break;
  }
  return std::numeric_limits<double>::quiet_NaN(); // internal_error: no reward
}

} // namespace cudaperf::reward
