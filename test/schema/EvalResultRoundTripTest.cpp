// Every stored eval result in the repository (data/**, test/**: plain, .gz, .xz, .zst and .tar.gz)
// read with schema::EvalResult::fromJson and written back with toJson gives the same text
// (support::writeJson of both), key order included. Documents nested in others (a serve message's
// "result") are found and checked too.
#include "cudaperf/Schema/EvalResult.h"
#include "StoredDocuments.h"

#include <gtest/gtest.h>

#include <iostream>

using cudaperf::schema::EvalResult;
using cudaperf::support::Json;

namespace {

constexpr const char *kSchemaText = "cudaperf-eval-result/1";

TEST(EvalResultRoundTrip, EveryStoredResultReadsAndWritesBackIdentically) {
  cudaperf::schema_test::StoredDocumentTally tally =
      cudaperf::schema_test::StoredDocumentWalk(kSchemaText, [](const Json &v, const std::string &where) {
        return EvalResult::fromJson(v, where).toJson();
      }).run();
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

// Issue 37's rule: the eval result is built in one place. A C++ source outside lib/Schema that
// spells the schema's string literal is writing (or checking) the document by hand.
TEST(EvalResultOwnership, NoHandBuiltEvalResultOutsideLibSchema) {
  std::vector<std::string> offenders =
      cudaperf::schema_test::sourcesSpellingOutsideSchema("\"cudaperf-eval-result/1\"", {".cpp", ".h", ".cu"});
  EXPECT_TRUE(offenders.empty()) << "use schema::EvalResult (include/cudaperf/Schema/EvalResult.h) in: "
                                 << ::testing::PrintToString(offenders);
}

} // namespace
