// `cudaperf-eval --serve` (docs/eval-serve.md): a long-running evaluator for trainers. Requests
// arrive as JSON Lines on stdin (or on connections to a local Unix socket), each candidate goes
// through the Evaluator's pipeline, and results stream back in completion order with the
// request's id. A malformed request gets an error message, never a dead server; a full queue
// stops the reading (back-pressure); shutdown (or EOF) drains or cancels what is queued.
#pragma once

#include "cudaperf/Runtime/Evaluator.h"
#include "cudaperf/Runtime/ServeProtocol.h"

#include <string>

namespace cudaperf::runtime {

// Serves one client on these descriptors until shutdown or EOF; returns the exit status (0).
int serveStream(Evaluator &evaluator, int inFd, int outFd, const ServePolicy &policy = ServePolicy());
// Serves clients connecting to a Unix socket at `path` until one asks for shutdown. Returns 0,
// or 1 when the socket cannot be opened (the reason on stderr).
int serveSocket(Evaluator &evaluator, const std::string &path, const ServePolicy &policy = ServePolicy());

} // namespace cudaperf::runtime
