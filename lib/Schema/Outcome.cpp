#include "cudaperf/Schema/Outcome.h"

namespace cudaperf::schema {

static const struct {
  Outcome outcome;
  const char *name;
} kNames[] = {
    {Outcome::Ok, "ok"},
    {Outcome::CompileError, "compile_error"},
    {Outcome::LaunchError, "launch_error"},
    {Outcome::RuntimeFault, "runtime_fault"},
    {Outcome::Timeout, "timeout"},
    {Outcome::WrongAnswer, "wrong_answer"},
    {Outcome::TimingViolation, "timing_violation"},
    {Outcome::InternalError, "internal_error"},
};

const char *outcomeName(Outcome o) {
  for (const auto &n : kNames)
    if (n.outcome == o)
      return n.name;
  return "internal_error";
}

std::optional<Outcome> parseOutcome(std::string_view name) {
  for (const auto &n : kNames)
    if (name == n.name)
      return n.outcome;
  return std::nullopt;
}

} // namespace cudaperf::schema
