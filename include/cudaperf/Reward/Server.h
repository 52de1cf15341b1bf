// `cudaperf-reward --serve`: the reward over HTTP/JSON (cpp-httplib) for trainers in any language
// (docs/reward.md, "Service"). Batches of requests (Requests.h) go into one bounded queue served by
// `jobs` threads through the same RewardPipeline as the command line, so the numbers are the CLI's;
// results stream back as chunked JSON Lines in completion order, or are polled by batch id.
//
//   POST   /v1/batches        {"requests": [...], "stream": true|false}
//   GET    /v1/batches/ID     ?wait=S: the records so far (long poll up to S seconds)
//   DELETE /v1/batches/ID     cancel what has not started
//   POST   /v1/reward         one request, answered when done
//   GET    /v1/health         queue, workers, the pipeline's description
#pragma once

#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/Requests.h"

#include <string>

namespace cudaperf::reward {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;           // 0: any free port (printed on stdout, and written to portFile)
  std::string portFile;
  int queueLimit = 256;   // requests waiting to start; a batch that does not fit gets 503
  int jobs = 2;           // requests served at once
  RequestPolicy requests; // task and candidate roots, source size (Requests.h)
  std::string tokenFile;  // bearer tokens, one a line; empty: no authorization (docs/reward.md, "Trust")
  size_t maxBodyBytes = size_t(64) << 20;
  int maxJsonDepth = 16;            // of a request body
  size_t maxJsonValues = 100000;    // values in a request body (members and elements included)
  int readTimeoutSeconds = 5;       // per read/write on a connection, and keep-alive idle time
  int headerTimeoutSeconds = 10;    // a request's line and headers, from its first byte (slowloris)
  int bodyTimeoutSeconds = 120;     // its body, after the headers
  int httpThreads = 64;             // connection threads; beyond them, 503 (health still answered)
  int overflowThreads = 256;        // threads that answer those 503s; past them connections wait
  int keepSeconds = 600;  // a finished batch stays pollable this long
  int maxBatches = 4096;  // batches known at once; past it the longest-finished are forgotten first
  int retryAfterSeconds = 5;
  bool withResults = false; // records carry their eval result
};

// Serves until SIGINT or SIGTERM; returns the exit code (0 after a signal, 1 when it cannot listen).
int runServer(RewardPipeline &pipeline, const ServerOptions &options);

} // namespace cudaperf::reward
