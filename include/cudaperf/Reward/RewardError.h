// The one exception type of lib/Reward: a config file, a request or an input document that cannot
// be used (the message names the file, the field path and what was wrong), an analyzer or
// evaluator that could not be run.
#pragma once

#include <stdexcept>
#include <string>

namespace cudaperf::reward {

class RewardError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace cudaperf::reward
