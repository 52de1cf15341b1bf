// Every stored eval result in the repository (data/**, test/**: plain, .gz, .xz, .zst and .tar.gz)
// read with schema::EvalResult::fromJson and written back with toJson gives the same text
// (support::writeJson of both), key order included. Documents nested in others (a serve message's
// "result") are found and checked too.
#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Support/Subprocess.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <functional>
#include <map>
#include <unistd.h>

namespace fs = std::filesystem;
using cudaperf::schema::EvalResult;
using cudaperf::support::Json;

namespace {

constexpr const char *kSchemaText = "cudaperf-eval-result/1";

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string decompressed(const std::string &path) {
  std::string tool = endsWith(path, ".xz") ? "xz" : endsWith(path, ".zst") ? "zstd" : "gzip";
  cudaperf::support::ProcessOptions options;
  options.separateStderr = true;
  options.maxCapturedBytes = size_t(512) << 20;
  options.timeoutSeconds = 60;
  auto r = cudaperf::support::runProcess({tool, "-dc", "--", path}, options);
  if (!r.succeeded())
    ADD_FAILURE() << tool << " -dc " << path << ": " << r.describe() << " " << r.errorOutput;
  return r.output;
}

struct Tally {
  size_t files = 0, documents = 0;
  std::map<std::string, size_t> perFile;
  std::vector<std::string> failures;
};

// Checks every eval result in `v` (the value itself or nested); `where` names it in failures.
void checkTree(const Json &v, const std::string &where, Tally &tally) {
  if (v.is_object()) {
    if (const Json *s = cudaperf::support::member(v, "schema"); s && s->is_string() && *s == kSchemaText) {
      ++tally.documents;
      try {
        std::string before = cudaperf::support::writeJson(v);
        std::string after = cudaperf::support::writeJson(EvalResult::fromJson(v, where).toJson());
        if (before != after && tally.failures.size() < 20) {
          size_t i = 0;
          while (i < before.size() && i < after.size() && before[i] == after[i])
            ++i;
          size_t from = i > 60 ? i - 60 : 0;
          tally.failures.push_back(where + ": differs at byte " + std::to_string(i) + "\n  read:    ..." +
                                   before.substr(from, 160) + "\n  written: ..." + after.substr(from, 160));
        }
      } catch (const std::exception &e) {
        tally.failures.push_back(where + ": " + e.what());
      }
      return;
    }
    for (const auto &kv : v.items())
      checkTree(kv.value(), where, tally);
  } else if (v.is_array()) {
    for (const Json &x : v)
      checkTree(x, where, tally);
  }
}

void checkText(const std::string &text, const std::string &where, Tally &tally) {
  if (text.find(kSchemaText) == std::string::npos)
    return;
  ++tally.files;
  size_t before = tally.documents;
  // A JSON document, or JSON Lines.
  try {
    checkTree(cudaperf::support::parseJson(text, where), where, tally);
  } catch (const cudaperf::support::SupportError &) {
    size_t start = 0, line = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos)
        end = text.size();
      ++line;
      std::string_view l(text.data() + start, end - start);
      if (l.find(kSchemaText) != std::string_view::npos) {
        std::string at = where + ":" + std::to_string(line);
        try {
          checkTree(cudaperf::support::parseJson(l, at), at, tally);
        } catch (const cudaperf::support::SupportError &e) {
          tally.failures.push_back(at + ": not JSON: " + e.what());
        }
      }
      start = end + 1;
    }
  }
  tally.perFile[where] = tally.documents - before;
}

void checkDirectory(const fs::path &root, const std::string &shown, Tally &tally);

void checkFile(const fs::path &p, const std::string &shown, Tally &tally) {
  std::string name = p.filename().string();
  if (endsWith(name, ".tar.gz") || endsWith(name, ".tgz")) {
    std::string dir = (fs::temp_directory_path() / ("schema-roundtrip-" + std::to_string(getpid()))).string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    cudaperf::support::ProcessOptions options;
    options.timeoutSeconds = 120;
    auto r = cudaperf::support::runProcess({"tar", "-xzf", p.string(), "-C", dir}, options);
    if (!r.succeeded())
      ADD_FAILURE() << "tar -xzf " << p << ": " << r.describe() << " " << r.output;
    else
      checkDirectory(fs::path(dir), shown + "!", tally);
    fs::remove_all(dir);
  } else if (endsWith(name, ".json.gz") || endsWith(name, ".jsonl.gz") || endsWith(name, ".json.xz") ||
             endsWith(name, ".jsonl.xz") || endsWith(name, ".json.zst") || endsWith(name, ".jsonl.zst")) {
    checkText(decompressed(p.string()), shown, tally);
  } else if (endsWith(name, ".json") || endsWith(name, ".jsonl")) {
    checkText(cudaperf::support::readRegularFile(p.string()), shown, tally);
  }
}

void checkDirectory(const fs::path &root, const std::string &shown, Tally &tally) {
  std::vector<fs::path> files;
  for (const auto &e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file())
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path &p : files)
    checkFile(p, shown + "/" + fs::relative(p, root).string(), tally);
}

TEST(EvalResultRoundTrip, EveryStoredResultReadsAndWritesBackIdentically) {
  Tally tally;
  for (const char *dir : {"data", "test"})
    checkDirectory(fs::path(CUDAPERF_SOURCE_DIR) / dir, dir, tally);
  for (const std::string &f : tally.failures)
    ADD_FAILURE() << f;
  // The repository holds thousands (data/measured, data/eval-runs, data/validation, the reward
  // goldens): a walk that found few has lost its way.
  EXPECT_GE(tally.documents, 5000u);
  EXPECT_GE(tally.files, 60u);
  for (const char *must : {"data/eval-runs/2026-12-06-h100-redteam-3/batch.jsonl.xz",
                           "data/eval-runs/2026-11-29-h200-b/mixed200.jsonl.gz",
                           "data/eval-runs/2026-12-02-h200-counters-ab/results-default.jsonl.zst",
                           "test/reward/golden/ok_pytorch/result.json"})
    EXPECT_GT(tally.perFile[must], 0u) << must;
  std::cout << "round-tripped " << tally.documents << " eval results in " << tally.files << " files\n";
}

} // namespace

namespace {

// Issue 37's rule: the eval result is built in one place. A C++ source outside lib/Schema that
// spells the schema's string literal is writing (or checking) the document by hand.
TEST(EvalResultOwnership, NoHandBuiltEvalResultOutsideLibSchema) {
  std::vector<std::string> offenders;
  for (const char *dir : {"lib", "tools", "include"})
    for (const auto &e : fs::recursive_directory_iterator(fs::path(CUDAPERF_SOURCE_DIR) / dir)) {
      std::string p = e.path().string();
      if (!e.is_regular_file() || !(endsWith(p, ".cpp") || endsWith(p, ".h") || endsWith(p, ".cu")))
        continue;
      std::string rel = fs::relative(e.path(), CUDAPERF_SOURCE_DIR).string();
      if (rel.rfind("lib/Schema/", 0) == 0 || rel.rfind("include/cudaperf/Schema/", 0) == 0)
        continue;
      if (cudaperf::support::readRegularFile(p).find("\"cudaperf-eval-result/1\"") != std::string::npos)
        offenders.push_back(rel);
    }
  EXPECT_TRUE(offenders.empty()) << "use schema::EvalResult (include/cudaperf/Schema/EvalResult.h) in: "
                                 << ::testing::PrintToString(offenders);
}

} // namespace
