// A directory of candidates, named by task (docs/bench.md, "Candidate directories"):
//   DIR/<task>.cu                    one sample ("0"), one turn
//   DIR/<task>/<sample>.cu           several samples, one turn each
//   DIR/<task>/<sample>/turn<t>.cu   several samples, refinement turns t = 1, 2, ...
#pragma once

#include "cudaperf/Bench/Suite.h"

#include <string>
#include <vector>

namespace cudaperf::bench {

struct CandidateFile {
  std::string task;
  std::string sample = "0";
  int turn = 1;
  std::string path; // absolute
};

struct CandidateSet {
  std::string dir;
  std::vector<CandidateFile> files; // ordered by task (suite order), sample, turn
  // Sample slots per task: --samples K, else the most any task has. Turns: --turns T, else the
  // highest found. Sample names are "0".."K-1" when K was given.
  int samples = 0;
  int turns = 0;
  std::vector<std::string> notes; // entries skipped (not .cu, hidden, turns past --turns)
};

struct CandidateOptions {
  int samples = 0; // 0: not fixed
  int turns = 0;   // 0: all found
};

// Throws BenchError (Candidates) for: a directory that is missing or holds no candidate; a file or
// folder named for a task the suite does not have; a task present both as <task>.cu and <task>/;
// a sample present both as <sample>.cu and <sample>/; a name that is not a sample or turn name;
// with --samples K, a sample outside 0..K-1.
CandidateSet scanCandidates(const std::string &dir, const Suite &suite, const CandidateOptions &options);

// Every present task's own implementations as candidates (--impls): TASK_DIR/impls/<name>.cu is
// sample <name>, turn 1. Throws BenchError (Candidates) when no task has one.
CandidateSet implCandidates(const Suite &suite);

// Where a result's candidate sits in that layout, from its path and task name (for --results):
// ".../<task>/<s>/turn<t>.cu", ".../<task>/<s>.cu" or ".../<task>/impls/<s>.cu", else sample "0",
// turn 1.
CandidateFile candidateFromPath(const std::string &path, const std::string &task);

// Sample names sort numerically when both are numbers ("2" < "10"), else as text.
bool sampleLess(const std::string &a, const std::string &b);

} // namespace cudaperf::bench
