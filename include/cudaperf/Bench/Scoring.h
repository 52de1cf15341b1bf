// One candidate scored: its outcome (the evaluator's, or the bench's own failures: a missing
// file, no result, a disallowed library) and, when correct, its speedup over each reference.
#pragma once

#include "cudaperf/Bench/Candidates.h"
#include "cudaperf/Bench/EvalResults.h"
#include "cudaperf/Bench/Metrics.h"
#include "cudaperf/Bench/Suite.h"

#include <map>
#include <string>
#include <vector>

namespace cudaperf::bench {

// What a candidate's time is compared with: the task's impls/baseline.cu (timed in the same worker
// process), PyTorch eager (cudaperf-torch-reference) and torch.compile (scripts/torch-baselines.py).
enum class Reference { Baseline, Eager, Compile };
constexpr Reference kReferences[] = {Reference::Baseline, Reference::Eager, Reference::Compile};
const char *referenceName(Reference r); // "baseline", "eager", "compile"

// Outcomes the bench adds to the evaluator's (docs/eval-result.md); all are failures.
constexpr const char *kOutcomeMissing = "missing";             // no file for a sample slot
constexpr const char *kOutcomeNotEvaluated = "not_evaluated";  // a file without a result
constexpr const char *kOutcomeDisallowed = "disallowed_library";

struct CandidateScore {
  CandidateFile file;
  std::string outcome;
  std::string detail;
  bool correct = false;
  std::map<Reference, Speedup> speedups; // correct candidates: each reference timed in every configuration
  std::string libraryCheck; // "source", "source and kernels", or why it was not checked
};

// Which references a task can be compared with: the baseline where impls/baseline.cu exists,
// eager for pytorch-to-cuda tasks, compile where torch-timing.json has compile timings.
std::vector<Reference> referencesOf(const SuiteTask &task, const TorchTimings *torch);

// result may be null (not evaluated); torch may be null. `source` is the candidate's text ("" when
// it cannot be read: the library check is then reported as not done).
CandidateScore scoreCandidate(const CandidateFile &file, const EvalResult *result, const SuiteTask &task,
                              const TorchTimings *torch, const std::string &source, bool sourceRead);

CandidateScore missingCandidate(const std::string &task, const std::string &sample);

} // namespace cudaperf::bench
