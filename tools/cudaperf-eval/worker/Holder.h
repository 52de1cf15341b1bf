// The worker executable's --holder mode (Holder.cpp): keeps tasks' input sets and expected
// outputs on one GPU for the workers that check candidates against them.
#pragma once

namespace cudaperf::worker {

// Serves holder requests from stdin until EOF; returns the exit status.
int runHolder();

} // namespace cudaperf::worker
