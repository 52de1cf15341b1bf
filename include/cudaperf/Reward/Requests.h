// The requests of `cudaperf-reward --batch` (one JSON object per line) and of the HTTP service
// (docs/reward.md, "Batch mode" and "Service"), and the record each gets back:
//
//   {"id": ID, "task": DIR, "candidate": PATH | "source": TEXT,
//    "turns": [{"candidate": PATH | "source": TEXT}, ...], "ranking_score": X}
//   -> {"id": ID, "ok": true, "total": X, "feedback": TEXT, "reward": DOCUMENT,
//       "trajectory": {...}}          (trajectory only when turns were given)
//   -> {"id": ID, "ok": false, "status": 400|422|500, "error": MESSAGE}
#pragma once

#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Support/Json.h"

#include <string>
#include <vector>

namespace cudaperf::reward {

struct RewardRequest {
  support::Json id;                      // as given (string or integer)
  std::vector<CandidateRequest> earlier; // the trajectory's earlier turns, oldest first
  CandidateRequest candidate;            // the turn asked about
};

// Task directories are taken relative to `taskRoot` when it is set, and may then not be absolute
// or leave it (".."). Throws RewardError naming the field ("requests[2].turns[0].source: ...").
RewardRequest parseRewardRequest(const support::Json &request, const std::string &where,
                                 const std::string &taskRoot);

// Throws RewardError when a task directory has no task.json or a candidate file does not exist.
void checkRequestPaths(const RewardRequest &request);

// Runs one request through the pipeline; never throws: a failure is an error record: status 422
// for a task or file that does not exist (checkRequestPaths), 500 for a failure to evaluate.
// `withResult` adds the eval result the reward was computed from ("result"), for audits and for
// analysing the candidates again elsewhere (scripts/reward-validate.py reads such records).
support::Json serveRewardRequest(RewardPipeline &pipeline, const RewardRequest &request, bool withResult = false);

// An error record for a request that could not even be parsed.
support::Json errorRecord(const support::Json &id, int status, const std::string &message);

} // namespace cudaperf::reward
