// cudaperf-dataset generate: task directories, dataset.json and manifest.jsonl (docs/dataset.md).
#pragma once

#include "cudaperf/Dataset/Family.h"

#include <functional>
#include <string>
#include <vector>

namespace cudaperf::dataset {

constexpr const char *kGeneratorVersion = "2"; // 2: matvec and pt_matvec read A (issue 15); 1: the first
constexpr const char *kDatasetSchema = "cudaperf-dataset/1";
constexpr const char *kManifestSchema = "cudaperf-dataset-manifest/1";

struct GenerateOptions {
  std::string outDir;
  uint64_t seed = 1;
  std::string familyGlob = "*"; // fnmatch pattern, comma-separated alternatives
  int limit = -1;               // at most this many tasks per family (-1: all)
  std::string kind = "all";     // c | pytorch | all
  int jobs = 2;                 // threads making and writing tasks
  std::function<void(const std::string &)> progress; // one line per family done
};

struct GenerateSummary {
  int tasks = 0, implementations = 0, families = 0;
};

// The families the options select, in registry order; throws DatasetError if none matches.
std::vector<const Family *> selectFamilies(const GenerateOptions &options);
// The task at `index` of `family` for `seed`, named and with its split decided.
TaskSpec makeTask(const Family &family, int index, uint64_t seed);
std::string splitOf(const Family &family, const TaskSpec &task); // train | val | test

GenerateSummary generate(const GenerateOptions &options); // throws DatasetError

} // namespace cudaperf::dataset
