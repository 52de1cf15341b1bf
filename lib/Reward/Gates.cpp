// Which gate a result falls under. The evaluator's outcome decides, except for two hacks that it
// reports as wrong answers and whose evidence is in the checks: an input the candidate modified,
// and results reused from an earlier call (correct on the first call of every configuration, wrong
// on a later call with new inputs).
#include "cudaperf/Reward/Reward.h"

#include <cmath>
#include <limits>

namespace cudaperf::reward {

namespace {

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

std::string gateOf(const features::EvalResult &result, const EvalDetails &details, std::string &reason) {
  reason = result.detail;
  if (!result.unknownOutcome.empty()) {
    // An outcome this reward does not know (a newer evaluator): not the candidate's fault to prove.
    reason = "unknown outcome \"" + result.unknownOutcome + "\"" + (result.detail.empty() ? "" : ": " + result.detail);
    return schema::outcomeName(schema::Outcome::InternalError);
  }
  switch (result.outcome) {
  case schema::Outcome::Ok:
    return "";
  case schema::Outcome::WrongAnswer:
    if (std::string m = modifiedInput(details); !m.empty()) {
      reason = m;
      return "modified_input";
    }
    if (std::string s = staleResults(details); !s.empty()) {
      reason = s;
      return "stale_results";
    }
    return schema::outcomeName(result.outcome);
  case schema::Outcome::CompileError:
  case schema::Outcome::LaunchError:
  case schema::Outcome::RuntimeFault:
  case schema::Outcome::Timeout:
  case schema::Outcome::TimingViolation:
  case schema::Outcome::InternalError:
    return schema::outcomeName(result.outcome);
  }
  return schema::outcomeName(schema::Outcome::InternalError);
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

double gateReward(const RewardConfig &config, const std::string &gate) {
  static const std::pair<const char *, double GateRewards::*> kGates[] = {
      {"compile_error", &GateRewards::compileError},     {"launch_error", &GateRewards::launchError},
      {"runtime_fault", &GateRewards::runtimeFault},     {"timeout", &GateRewards::timeout},
      {"wrong_answer", &GateRewards::wrongAnswer},       {"timing_violation", &GateRewards::timingViolation},
      {"modified_input", &GateRewards::modifiedInput},   {"stale_results", &GateRewards::staleResults},
      {"no_work", &GateRewards::noWork},                 {"no_code_block", &GateRewards::noCodeBlock}};
  for (const auto &[name, field] : kGates)
    if (gate == name)
      return config.gates.*field;
  return std::numeric_limits<double>::quiet_NaN(); // internal_error: no reward
}

} // namespace cudaperf::reward
