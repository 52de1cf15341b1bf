// The generated dataset's task list (docs/dataset.md: manifest.jsonl, schema
// cudaperf-dataset-manifest/1) as the trainers read it, and the held-out selections SFT sampling,
// the RL trainer and its evaluation share. No LibTorch.
#pragma once

#include "cudaperf/Learn/Error.h"

#include <set>
#include <string>
#include <vector>

namespace cudaperf::learn {

struct ManifestTask {
  std::string name, dir, family, kind, split;  // dir: joined with the dataset directory
  std::vector<std::string> implementations;     // files relative to the task directory
  // Per implementation (same order; empty where the manifest has none): the generator's strategy
  // labels and its expectation against the baseline ("fast", "neutral", "slow").
  std::vector<std::vector<std::string>> strategies;
  std::vector<std::string> expected;
};

// Throws LearnError naming the file and line of a malformed entry, or "no tasks".
std::vector<ManifestTask> readManifest(const std::string &datasetDir);

// Families that have a task in `split` (the training families: split "train").
std::set<std::string> familiesOf(const std::vector<ManifestTask> &tasks, const std::string &split);

enum class FamilyFilter { Any, Within, Outside }; // relative to `families`

// Up to `count` tasks of `split` whose kind is in `kinds` (empty: any) and whose family passes the
// filter, round-robin over the families (manifest order within each) so that every family appears.
std::vector<const ManifestTask *> selectRoundRobin(const std::vector<ManifestTask> &tasks, const std::string &split,
                                                   const std::set<std::string> &kinds, FamilyFilter filter,
                                                   const std::set<std::string> &families, size_t count);

std::vector<std::string> splitList(const std::string &commaSeparated); // "a, b,,c" -> a b c

} // namespace cudaperf::learn
