// The typed outcome of evaluating one candidate. Names are part of the result JSON contract
// (docs/eval-result.md): add, never rename.
#pragma once

#include <optional>
#include <string>

namespace cudaperf::runtime {

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

const char *outcomeName(Outcome o);
std::optional<Outcome> parseOutcome(const std::string &name);

} // namespace cudaperf::runtime
