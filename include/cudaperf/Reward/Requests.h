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

// What a client may name (docs/reward.md, "Trust"). Task directories are taken relative to
// `taskRoot` when it is set, and must then resolve (after symbolic links) inside it. A "candidate"
// file name is refused unless `candidateRoot` is set, and must then resolve to a regular file inside
// it (read at once: what follows sees only text). Sources are at most maxSourceBytes.
struct RequestPolicy {
  std::string taskRoot;
  std::string candidateRoot;
  size_t maxSourceBytes = size_t(1) << 20;
};
constexpr size_t kMaxTurns = 64;

// Throws RewardError naming the field ("requests[2].turns[0].source: ...").
RewardRequest parseRewardRequest(const support::Json &request, const std::string &where,
                                 const RequestPolicy &policy);

// Strings of a record as a client may read them: the candidates' work-directory paths become
// "candidate.cu", other temporary paths "<temporary>", messages located in other files are dropped.
void sanitizeRecord(support::Json &record, const std::vector<std::string> &sources);

// Throws RewardError when a task directory has no task.json or a candidate file does not exist.
void checkRequestPaths(const RewardRequest &request);

// Runs one request through the pipeline; never throws. A source that asks for a server file
// (support::refuseHostileSource) is not compiled: it gets the compile_error reward with the reason. a failure is an error record: status 422
// for a task or file that does not exist (checkRequestPaths), 500 for a failure to evaluate.
// `withResult` adds the eval result the reward was computed from ("result"), for audits and for
// analysing the candidates again elsewhere (scripts/reward-validate.py reads such records).
support::Json serveRewardRequest(RewardPipeline &pipeline, const RewardRequest &request, bool withResult = false);

// An error record for a request that could not even be parsed.
support::Json errorRecord(const support::Json &id, int status, const std::string &message);

} // namespace cudaperf::reward
