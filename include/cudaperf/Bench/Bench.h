// The scoring pipeline of cudaperf-bench, without the command line: match evaluation results to
// candidate files, fill the sample slots nothing answers, score, aggregate.
#pragma once

#include "cudaperf/Bench/Report.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::bench {

struct ScoreInputs {
  const Suite *suite = nullptr;
  // The candidate files when known (a run, or --results with --candidates); otherwise they are
  // read from the results' candidate paths (candidateFromPath).
  std::optional<CandidateSet> candidates;
  std::vector<EvalResult> results;
  std::string resultsPath;
  std::vector<std::string> evalCommand;
  // --torch-timings: replaces TASK_DIR/exported/torch-timing.json for the tasks it names.
  std::map<std::string, TorchTimings> torchTimings;
  int samples = 0; // --samples (0: as found)
  int turns = 0;   // --turns (0: as found)
  AggregateOptions options;
};

// Throws BenchError (Results) when no result belongs to a task of the suite.
BenchReport scoreBench(ScoreInputs inputs);

// Runs cudaperf-eval --batch over the candidates, results as JSON Lines into resultsPath, its
// progress lines on this process's stderr. Returns the command run. Throws BenchError (Run) when
// the evaluator cannot be started, rejects its command line (exit 2-4), or wrote no results.
std::vector<std::string> runEvaluator(const std::string &evalPath, const CandidateSet &candidates, const Suite &suite,
                                      const std::string &workDir, const std::string &resultsPath, int jobs,
                                      const std::vector<std::string> &extraArgs);

// fork + exec of argv (PATH searched) with this process's stdout/stderr: the exit status (127 when
// it could not be executed, with a line on stderr), or -1 with `why` set (fork, wait, a signal).
int runInheritingOutput(const std::vector<std::string> &argv, std::string &why);

} // namespace cudaperf::bench
