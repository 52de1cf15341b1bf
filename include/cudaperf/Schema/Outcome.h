// The typed outcome of evaluating one candidate. Names are part of the result JSON contract
// (docs/eval-result.md): add, never rename. lib/Schema owns it; lib/Runtime re-exports it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cudaperf::schema {

enum class Outcome {
  Ok,              // correct on every input set of every configuration, timed honestly
  CompileError,    // nvcc failed or exceeded the compile time limit
  LaunchError,     // a kernel launch was rejected (bad configuration, too much shared memory, ...)
  RuntimeFault,    // the GPU or the process faulted: illegal address, trap, abort, crash, exit, leak
  Timeout,         // the worker stopped making progress and was killed
  WrongAnswer,     // an output differed from the reference, or an input was modified
  TimingViolation, // correct, but work escaped the timed stream (other streams, host, threads)
  InternalError,   // the evaluator could not judge the candidate (broken task, no GPU, baseline failed)
};

// The wire name ("ok", "compile_error", ...).
const char *outcomeName(Outcome o);
// nullopt for a name that is not an outcome.
std::optional<Outcome> parseOutcome(std::string_view name);

} // namespace cudaperf::schema
