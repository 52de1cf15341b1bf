// The typed outcome of evaluating one candidate: owned by lib/Schema (cudaperf/Schema/Outcome.h),
// named here too for the runtime's code.
#pragma once

#include "cudaperf/Schema/Outcome.h"

namespace cudaperf::runtime {

using schema::Outcome;
using schema::outcomeName;
using schema::parseOutcome;

} // namespace cudaperf::runtime
