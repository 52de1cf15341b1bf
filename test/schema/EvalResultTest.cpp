#include "cudaperf/Schema/EvalResult.h"

#include <gtest/gtest.h>

using namespace cudaperf::schema;
using cudaperf::support::Json;
using cudaperf::support::parseJson;
using cudaperf::support::SupportError;
using cudaperf::support::writeJson;

namespace {

const char *kDoc = R"({"schema":"cudaperf-eval-result/1","task":"vector_add","task_dir":"/t/vector_add",
"candidate":"c.cu","candidate_sha256":"ab","outcome":"ok","detail":"","speedup":1.5,
"compile":{"ok":true,"cached":false,"seconds":0.5,"arch":"sm_90","command":"nvcc","log":""},"compile_only":false,
"seed":1,"sets":3,"worker":{"status":"exit status 0","seconds":1.0,"future_key":[1,2]},
"configs":[{"name":"small","params":{"n":1024,"alpha":0.5},
  "baseline":{"median_ms":2.0,"runs":10,"stable":true},
  "candidate":{"median_ms":1.0,"runs":10,"stable":true},"reference_ms":2.0,"speedup":2.0},
 {"name":"large","params":{"n":4096},"speedup_vs_baseline":null}],
"tools":{"cudaperf_eval":"1","driver_version":null},"evaluation_seconds":2.5,"zzz_new":{"a":1}})";

std::string roundTrip(const Json &doc) { return writeJson(EvalResult::fromJson(doc).toJson()); }

std::string errorOf(const std::string &text) {
  try {
    EvalResult::fromJson(parseJson(text), "result.json");
  } catch (const SupportError &e) {
    return e.what();
  }
  return "(no error)";
}

TEST(EvalResult, ReadsTypedFields) {
  EvalResult r = EvalResult::fromJson(parseJson(kDoc));
  EXPECT_EQ(r.outcome, Outcome::Ok);
  EXPECT_EQ(r.speedupValue(), 1.5);
  EXPECT_TRUE(r.compiled());
  ASSERT_TRUE(r.configs);
  ASSERT_EQ(r.configs->size(), 2u);
  EXPECT_EQ((*r.configs)[0].candidate->medianMs, 1.0);
  EXPECT_EQ((*r.configs)[0].candidate->runs, 10);
  EXPECT_FALSE((*r.configs)[1].candidate.has_value());
  ASSERT_TRUE((*r.configs)[1].speedupVsBaseline.has_value()); // present ...
  EXPECT_FALSE((*r.configs)[1].speedupVsBaseline->has_value()); // ... and null
  EXPECT_FALSE((*r.configs)[0].speedupVsBaseline.has_value()); // absent
  ASSERT_TRUE(r.tools && r.tools->driverVersion.has_value());
  EXPECT_FALSE(r.tools->driverVersion->has_value());
  EXPECT_EQ(r.extra["zzz_new"]["a"], 1);
  EXPECT_EQ(r.worker->extra["future_key"][1], 2);
}

TEST(EvalResult, RoundTripIsExactWithUnknownKeysAndOrder) {
  Json doc = parseJson(kDoc);
  EXPECT_EQ(roundTrip(doc), writeJson(doc));
  // Another writer's order (tools before outcome) is kept too.
  Json moved = Json::object();
  for (const char *k : {"schema", "tools", "outcome", "detail"})
    moved[k] = doc[k];
  EXPECT_EQ(roundTrip(moved), writeJson(moved));
}

TEST(EvalResult, AnOutcomeOfANewerEvaluatorIsKept) {
  Json doc = parseJson(R"({"schema":"cudaperf-eval-result/1","outcome":"solar_flare","detail":"x"})");
  EvalResult r = EvalResult::fromJson(doc);
  EXPECT_EQ(r.outcome, Outcome::InternalError);
  EXPECT_EQ(r.unknownOutcome, "solar_flare");
  EXPECT_EQ(r.outcomeText(), "solar_flare");
  EXPECT_EQ(writeJson(r.toJson()), writeJson(doc));
}

TEST(EvalResult, AChangedFieldIsSeen) {
  // The round trip's comparison is not blind: a changed value in the struct changes the text.
  Json doc = parseJson(kDoc);
  EvalResult r = EvalResult::fromJson(doc);
  (*r.configs)[0].candidate->medianMs = 1.25;
  EXPECT_NE(writeJson(r.toJson()), writeJson(doc));
  r = EvalResult::fromJson(doc);
  r.outcome = Outcome::WrongAnswer;
  EXPECT_NE(writeJson(r.toJson()), writeJson(doc));
  r = EvalResult::fromJson(doc);
  r.speedup = std::optional<double>(); // null instead of 1.5
  EXPECT_NE(writeJson(r.toJson()), writeJson(doc));
}

TEST(EvalResult, ErrorsNameTheFieldPath) {
  std::string d = kDoc;
  auto with = [&](const std::string &from, const std::string &to) {
    std::string s = d;
    s.replace(s.find(from), from.size(), to);
    return errorOf(s);
  };
  EXPECT_NE(with("\"median_ms\":1.0", "\"median_ms\":\"fast\"").find("configs[0].candidate.median_ms: expected a number"),
            std::string::npos)
      << with("\"median_ms\":1.0", "\"median_ms\":\"fast\"");
  EXPECT_NE(with("\"outcome\":\"ok\"", "\"outcome\":7").find("outcome: expected a string"), std::string::npos);
  EXPECT_NE(with("\"runs\":10,\"stable\":true},\n  \"candidate\"", "\"runs\":1.5,\"stable\":true},\n  \"candidate\"")
                .find("configs[0].baseline.runs"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"schema":"cudaperf-eval-result/1","outcome":"ok","configs":{"x":1}})").find("configs: expected an array"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"schema":"cudaperf-eval-result/1","outcome":"ok","compile":[1]})").find("compile: expected an object"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"schema":"cudaperf-eval-result/1","outcome":"ok","configs":[{},{},{"candidate":{"median_ms":true}}]})")
                .find("result.json: configs[2].candidate.median_ms: expected a number"),
            std::string::npos);
  EXPECT_NE(with("cudaperf-eval-result/1", "cudaperf-eval-result/2").find("schema: expected \"cudaperf-eval-result/1\""),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"schema":"cudaperf-eval-result/1"})").find("missing \"outcome\""), std::string::npos);
  EXPECT_NE(errorOf(R"([1,2])").find("expected an object"), std::string::npos);
  EXPECT_NE(errorOf(R"({"schema":"cudaperf-eval-result/1","outcome":"ok","speedup":"abc"})").find("speedup: expected a number"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"schema":"cudaperf-eval-result/1","outcome":"ok","gpu":3})").find("gpu: expected an object"),
            std::string::npos);
}

TEST(EvalResult, NamedConstructorsWriteTheWireFormat) {
  EXPECT_EQ(writeJson(EvalResult::notRun("/t", "c.cu", Outcome::CompileError, "no").toJson()),
            R"({"schema":"cudaperf-eval-result/1","task_dir":"/t","candidate":"c.cu","outcome":"compile_error","detail":"no"})");
  EXPECT_EQ(writeJson(EvalResult::taskDataFailed("t", "/t", "c.cu", "why", Json{{"queued", 0.5}}).toJson()),
            R"({"schema":"cudaperf-eval-result/1","task":"t","task_dir":"/t","candidate":"c.cu",)"
            R"("outcome":"internal_error","detail":"why","stage_seconds":{"queued":0.5}})");
  EXPECT_EQ(writeJson(EvalResult::synthetic("t", "/t", "(policy answer)", "", Outcome::CompileError, "no code block",
                                            "log", false)
                          .toJson()),
            R"x({"schema":"cudaperf-eval-result/1","task":"t","task_dir":"/t","candidate":"(policy answer)",)x"
            R"x("candidate_sha256":"","outcome":"compile_error","detail":"no code block","speedup":null,)x"
            R"x("compile":{"ok":false,"log":"log"},"compile_only":false})x");
}

TEST(Outcome, NamesRoundTrip) {
  for (Outcome o : {Outcome::Ok, Outcome::CompileError, Outcome::LaunchError, Outcome::RuntimeFault, Outcome::Timeout,
                    Outcome::WrongAnswer, Outcome::TimingViolation, Outcome::InternalError})
    EXPECT_EQ(parseOutcome(outcomeName(o)), o);
  EXPECT_FALSE(parseOutcome("fine").has_value());
  EXPECT_FALSE(parseOutcome("").has_value());
  EXPECT_STREQ(outcomeName(Outcome::TimingViolation), "timing_violation");
}

} // namespace
