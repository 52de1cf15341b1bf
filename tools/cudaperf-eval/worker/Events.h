// The worker's event file (docs/eval-result.md, "Worker protocol"): one JSON object per line,
// appended with write(2), so a crash loses nothing already reported. A "phase" line precedes
// every step that runs implementation code; "done" is the last line of a worker that finished.
#pragma once

#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/Json.h"

#include <string>

namespace cudaperf::worker {

using support::Json;

// Events go to this file from now on (false: it cannot be opened).
bool openEvents(const std::string &path);
// One line (include/cudaperf/Schema/Protocol.h), with "t": seconds since the worker started.
void emit(schema::WorkerEvent e);
void phase(const std::string &impl, const std::string &config, const std::string &step, int set = -1);
// "done", then _exit: no atexit handler or static destructor of candidate code runs after the verdict.
[[noreturn]] void finish(int code);
// The worker cannot evaluate (an "error" event). `retryable`: the cause is passing (the device
// was full), so the evaluator may start the worker again.
[[noreturn]] void setupError(const std::string &detail, bool retryable = false);

} // namespace cudaperf::worker
