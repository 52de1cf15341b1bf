// The one exception type of lib/Features: a document that cannot be read (its message names the
// file, the field path and what was wrong), an analyzer that failed, an eval result that is not
// the candidate's.
#pragma once

#include <stdexcept>
#include <string>

namespace cudaperf::features {

class FeaturesError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace cudaperf::features
