#pragma once
// Stored evaluator results (cudaperf-eval-result/1 documents, one per line), as scripts/gpu/measure-dataset.sh
// writes them under data/measured/dataset-h200: JSON Lines, zstd-compressed when the name ends in .zst.
#include "cudaperf/Support/Json.h"

#include <string>
#include <vector>

namespace cudaperf::learn {

// Every document of one file; LearnError naming the file (and line) when it cannot be read, is not valid
// zstd, or holds a line that is not JSON. A .zst file in a build without libzstd is a LearnError too.
std::vector<support::Json> readResultDocuments(const std::string &path);

} // namespace cudaperf::learn
