// The one exception type of lib/Bench: a suite, candidate directory, result file or option that
// cannot be used. The message names the file, field or value at fault; cudaperf-bench maps the
// kind to its documented exit code (docs/bench.md).
#pragma once

#include <stdexcept>
#include <string>

namespace cudaperf::bench {

class BenchError : public std::runtime_error {
public:
  enum class Kind {
    Usage,      // a bad option value
    Suite,      // the suite file, or a task it names
    Candidates, // the candidate directory
    Results,    // a result file
    Run,        // running cudaperf-eval, writing output
  };
  BenchError(Kind kind, const std::string &message) : std::runtime_error(message), kind(kind) {}
  Kind kind;
};

} // namespace cudaperf::bench
