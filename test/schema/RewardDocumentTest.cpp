// schema::RewardDocument (`cudaperf-reward/1`): the typed fields, errors that name the field path,
// the exact round trip (unknown keys and key order kept), and every stored reward document in the
// repository (data/**, test/**: plain, .gz, .xz, .zst, .tar.gz; nested ones too, such as the RL
// trainer's `reward_document`) read and written back to the same text.
#include "cudaperf/Schema/RewardDocument.h"
#include "StoredDocuments.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace cudaperf::schema;
using cudaperf::support::Json;
using cudaperf::support::parseJson;
using cudaperf::support::SupportError;
using cudaperf::support::writeJson;

namespace {

// As lib/Reward writes it (measured, counters, a pytorch-to-cuda configuration), plus a key this
// build does not know.
const char *kDoc = R"({"schema":"cudaperf-reward/1","task":"transpose","task_kind":"c-to-cuda",
"candidate":"c.cu","candidate_sha256":"ab","mode":"measured","outcome":"ok","detail":"","gate":null,
"total":1.5,"exclude":false,"provisional":false,
"terms":[{"name":"correct","group":"outcome","value":1.0,"weight":1.0,"contribution":1.0,"inputs":{"outcome":"ok"}},
 {"name":"coalescing","group":"structural","value":null,"weight":0.04,"contribution":0.02,"missing":"no analysis",
  "inputs":{}}],
"configurations":[{"name":"small","weight":1.0,"params":{"n":1024.0,"alpha":0.5},"correct":true,"speedup":1.2,
  "tie":false,"speedup_vs_baseline":1.1,"tie_vs_baseline":true,"median_ms":0.01,"spread":0.05,
  "predicted_speedup":null,
  "static":{"modeled":true,"modeled_time_us":5.0,"roofline_time_us":1.0,"predicted_roofline_fraction":0.2,
   "coalescing_efficiency":1.0,"bank_efficiency":null,"utilization":0.5,"predicted_sectors_per_request":4.0,
   "ideal_sectors_per_request":4.0,"divergent_barriers":0,"missing_barriers":1,
   "launches":[{"index":0,"kernel":"k","modeled":true,"modeled_time_us":5.0,"roofline_time_us":1.0,
     "dram_time_us":1.0,"shared_time_us":0.0,"atomic_time_us":0.0,"utilization":0.5,"assumptions":["a"]},
    {"index":1,"kernel":"j","modeled":false,"reason":"no report","utilization":1.0}]},
  "measured":{"sectors_per_request":4.1,"achieved_occupancy":null,"achieved_roofline_fraction":0.3}}],
"warnings":["w"],"config":{"name":"default","sha256":"cd"},"feedback":"Outcome: ok","zzz_new":{"a":1}})";

std::string roundTrip(const Json &doc) { return writeJson(RewardDocument::fromJson(doc).toJson()); }

std::string errorOf(const Json &doc) {
  try {
    RewardDocument::fromJson(doc, "reward.json");
  } catch (const SupportError &e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RewardDocument, ReadsTypedFields) {
  RewardDocument d = RewardDocument::fromJson(parseJson(kDoc));
  EXPECT_EQ(d.task, "transpose");
  EXPECT_FALSE(d.gate.has_value());
  EXPECT_EQ(d.total, 1.5);
  EXPECT_EQ(d.provisional, false);
  ASSERT_EQ(d.terms.size(), 2u);
  ASSERT_NE(d.term("coalescing"), nullptr);
  EXPECT_FALSE(d.term("coalescing")->value.has_value());
  EXPECT_EQ(d.term("coalescing")->missing, "no analysis");
  EXPECT_EQ(d.term("correct")->inputs["outcome"], "ok");
  ASSERT_EQ(d.configurations.size(), 1u);
  const RewardConfiguration &c = d.configurations[0];
  ASSERT_EQ(c.params.size(), 2u);
  EXPECT_EQ(c.params[1].first, "alpha");
  EXPECT_EQ(c.correct, true);
  EXPECT_EQ(c.tieVsBaseline, true);
  EXPECT_FALSE(c.predictedSpeedup.has_value());
  ASSERT_TRUE(c.staticModel);
  EXPECT_EQ(c.staticModel->missingBarriers, 1);
  EXPECT_FALSE(c.staticModel->bankEfficiency.has_value());
  ASSERT_EQ(c.staticModel->launches.size(), 2u);
  EXPECT_EQ(c.staticModel->launches[1].reason, "no report");
  EXPECT_FALSE(c.staticModel->launches[1].modeledTimeUs.has_value());
  ASSERT_TRUE(c.measured);
  EXPECT_FALSE(c.measured->achievedOccupancy.has_value());
  EXPECT_EQ(d.config.sha256, "cd");
  EXPECT_EQ(d.feedback, "Outcome: ok");
  EXPECT_EQ(d.extra["zzz_new"]["a"], 1);
}

TEST(RewardDocument, RoundTripIsExactWithUnknownKeysAndOrder) {
  Json doc = parseJson(kDoc);
  EXPECT_EQ(roundTrip(doc), writeJson(doc));
  // A document written before issue 33 (no "provisional"), keys in another order, an unknown key
  // inside a term.
  Json old = doc;
  old.erase("provisional");
  old["terms"][0]["zzz"] = true;
  Json moved = Json::object();
  for (const char *k : {"schema", "config", "total", "gate"})
    moved[k] = old[k];
  for (const auto &kv : old.items())
    if (!moved.contains(kv.key()))
      moved[kv.key()] = kv.value();
  EXPECT_EQ(roundTrip(moved), writeJson(moved));
}

TEST(RewardDocument, WriterOrderAndOptionalKeys) {
  RewardDocument d;
  d.task = "t";
  d.gate = "compile_error";
  d.gateReason = "nvcc failed";
  d.total = -0.8;
  d.provisional = false;
  RewardTerm t;
  t.name = "gate";
  t.group = "outcome";
  t.value = -0.8;
  t.weight = 1;
  t.contribution = -0.8;
  d.terms.push_back(t);
  d.config.name = "default";
  EXPECT_EQ(writeJson(d.toJson()),
            writeJson(parseJson(R"({"schema":"cudaperf-reward/1","task":"t","task_kind":"","candidate":"",
"candidate_sha256":"","mode":"","outcome":"","detail":"","gate":"compile_error","gate_reason":"nvcc failed",
"total":-0.8,"exclude":false,"provisional":false,"terms":[{"name":"gate","group":"outcome","value":-0.8,
"weight":1.0,"contribution":-0.8,"inputs":{}}],"configurations":[],"warnings":[],
"config":{"name":"default","sha256":""}})")));
}

TEST(RewardDocument, ErrorsNameTheFieldPath) {
  Json doc = parseJson(kDoc);
  Json noWeight = doc;
  noWeight["terms"][1].erase("weight");
  EXPECT_EQ(errorOf(noWeight), "reward.json: terms[1].weight: missing");
  Json badIndex = doc;
  badIndex["configurations"][0]["static"]["launches"][1]["index"] = "x";
  EXPECT_NE(errorOf(badIndex).find("reward.json: configurations[0].static.launches[1].index: expected"),
            std::string::npos)
      << errorOf(badIndex);
  Json badParam = doc;
  badParam["configurations"][0]["params"]["n"] = true;
  EXPECT_NE(errorOf(badParam).find("configurations[0].params.n: expected a number"), std::string::npos)
      << errorOf(badParam);
  Json badTotal = doc;
  badTotal["total"] = "high";
  EXPECT_NE(errorOf(badTotal).find("reward.json: total: expected a number"), std::string::npos) << errorOf(badTotal);
  Json noTotal = doc;
  noTotal.erase("total"); // written as null when excluded, never absent
  EXPECT_EQ(errorOf(noTotal), "reward.json: total: missing");
  Json badMeasured = doc;
  badMeasured["configurations"][0]["measured"] = Json::array();
  EXPECT_NE(errorOf(badMeasured).find("configurations[0].measured: expected an object"), std::string::npos)
      << errorOf(badMeasured);
  Json badWarning = doc;
  badWarning["warnings"][0] = 3;
  EXPECT_NE(errorOf(badWarning).find("warnings[0]: expected a string"), std::string::npos) << errorOf(badWarning);
  Json otherSchema = doc;
  otherSchema["schema"] = "cudaperf-reward/2";
  EXPECT_NE(errorOf(otherSchema).find("schema: expected \"cudaperf-reward/1\""), std::string::npos)
      << errorOf(otherSchema);
  Json noSchema = doc;
  noSchema.erase("schema");
  EXPECT_NE(errorOf(noSchema).find("reward.json: missing \"schema\""), std::string::npos) << errorOf(noSchema);
}

// --- Every stored reward document --------------------------------------------------------------

TEST(RewardDocumentRoundTrip, EveryStoredDocumentReadsAndWritesBackIdentically) {
  cudaperf::schema_test::StoredDocumentTally tally =
      cudaperf::schema_test::StoredDocumentWalk(kRewardSchema, [](const Json &v, const std::string &where) {
        return RewardDocument::fromJson(v, where).toJson();
      }).run();
  for (const std::string &f : tally.failures)
    ADD_FAILURE() << f;
  // The RL runs' candidates.jsonl.gz hold 1840 (each candidate's reward_document): a walk that
  // found few has lost its way.
  EXPECT_GE(tally.documents, 1800u);
  for (const char *must : {"data/eval-runs/2026-12-01-h200-rl-2/candidates.jsonl.gz",
                           "data/eval-runs/2026-12-02-h200-rl-4/candidates.jsonl.gz"})
    EXPECT_GT(tally.perFile[must], 0u) << must;
  std::cout << "round-tripped " << tally.documents << " reward documents in " << tally.files << " files\n";
  for (const auto &[file, n] : tally.perFile)
    std::cout << "  " << file << ": " << n << "\n";
}

TEST(RewardDocumentOwnership, NoHandBuiltRewardDocumentOutsideLibSchema) {
  std::vector<std::string> offenders =
      cudaperf::schema_test::sourcesSpellingOutsideSchema("\"cudaperf-reward/1\"", {".cpp", ".h"});
  EXPECT_TRUE(offenders.empty()) << "use schema::RewardDocument (include/cudaperf/Schema/RewardDocument.h) in: "
                                 << ::testing::PrintToString(offenders);
}

} // namespace
