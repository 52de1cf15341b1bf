// The one exception type of lib/Support. Its message names the input at fault (the file, the
// JSON field path, the option) and what was wrong with it; mains catch it at their boundary and
// map it to their documented exit codes (docs/architecture.md, "Conventions of the non-LLVM
// libraries").
#pragma once

#include <stdexcept>
#include <string>

namespace cudaperf::support {

class SupportError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace cudaperf::support
