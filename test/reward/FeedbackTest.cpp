// The feedback text: golden files (test/reward/golden/<case>/: the stored H200 result, the analysis
// where the case has one, the expected feedback and the expected gate, total and term values), and
// the log trimming and length rules on hand-made input. CUDAPERF_UPDATE_GOLDEN=1 rewrites the
// expected files (then review the diff).
#include "RewardFixtures.h"

#include "cudaperf/Reward/Feedback.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace cudaperf;
using namespace cudaperf::reward;
namespace fs = std::filesystem;

namespace {

const std::string kGolden = std::string(CUDAPERF_SOURCE_DIR) + "/test/reward/golden";

std::string readText(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The parts of the reward document a golden file pins: gate, total and every term's value.
support::Json summary(const RewardDocument &d) {
  support::Json terms = support::Json::object();
  for (const RewardTerm &t : d.terms)
    terms[t.name] = t.value ? support::Json(std::round(*t.value * 1e6) / 1e6) : support::Json(nullptr);
  return {{"gate", d.gate ? support::Json(gateName(*d.gate)) : support::Json(nullptr)},
          {"total", d.total ? support::Json(std::round(*d.total * 1e6) / 1e6) : support::Json(nullptr)},
          {"exclude", d.exclude},
          {"terms", terms}};
}

} // namespace

class FeedbackGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(FeedbackGolden, MatchesTheStoredText) {
  fs::path dir = fs::path(kGolden) / GetParam();
  std::optional<features::AnalysisDocument> analysis, baseline;
  if (fs::exists(dir / "analysis.json"))
    analysis = features::readAnalysisFile((dir / "analysis.json").string());
  if (fs::exists(dir / "baseline.json"))
    baseline = features::readAnalysisFile((dir / "baseline.json").string());
  RewardConfig config;
  CandidateResult r = rewardFromDocuments(config, support::readJsonFile((dir / "result.json").string()), "result.json",
                                          analysis, baseline, std::nullopt,
                                          analysis ? "" : "the analyzer was not run for this case");
  std::string text = r.reward.feedback;
  std::string sum = support::writeJson(summary(r.reward), 1) + "\n";
  if (std::getenv("CUDAPERF_UPDATE_GOLDEN")) {
    std::ofstream(dir / "expected-feedback.txt", std::ios::binary) << text << "\n";
    std::ofstream(dir / "expected-reward.json", std::ios::binary) << sum;
  }
  EXPECT_EQ(text + "\n", readText(dir / "expected-feedback.txt")) << "case " << GetParam();
  EXPECT_EQ(sum, readText(dir / "expected-reward.json")) << "case " << GetParam();
  EXPECT_LE(text.size(), size_t(config.feedback.maxChars));
  // Deterministic: the same inputs give the same text.
  CandidateResult again = rewardFromDocuments(config, support::readJsonFile((dir / "result.json").string()),
                                              "result.json", analysis, baseline, std::nullopt,
                                              analysis ? "" : "the analyzer was not run for this case");
  EXPECT_EQ(again.reward.feedback, text);
}

INSTANTIATE_TEST_SUITE_P(Cases, FeedbackGolden, ::testing::ValuesIn([] {
                           std::vector<std::string> names;
                           for (const auto &e : fs::directory_iterator(kGolden))
                             if (e.is_directory())
                               names.push_back(e.path().filename().string());
                           std::sort(names.begin(), names.end());
                           return names;
                         }()),
                         [](const auto &info) { return info.param; });

TEST(Feedback, CompileLogKeepsTheFirstErrorsWithoutDirectories) {
  std::string log = "/tmp/cache/9e/x.tmp-eAV183/candidate.cu(6): error: \"this\" may only be used here\n"
                    "    this is not C++;\n"
                    "    ^\n\n"
                    "/tmp/cache/9e/x.tmp-eAV183/candidate.cu(7): warning: unused\n\n"
                    "/tmp/cache/9e/x.tmp-eAV183/candidate.cu(9): error: expected a \";\"\n\n"
                    "/tmp/cache/9e/x.tmp-eAV183/candidate.cu(12): error: identifier \"q\" is undefined\n\n"
                    "3 errors detected in the compilation of \"/tmp/cache/9e/x.tmp-eAV183/shim.cu\".\n\n"
                    "[cudaperf-eval] shim.cu calls the entry point; every implementation must define\n"
                    "  extern \"C\" void f(float *x, cudaStream_t stream)\n";
  std::string t = trimCompileLog(log, 2);
  EXPECT_EQ(t, "candidate.cu(6): error: \"this\" may only be used here\n"
               "    this is not C++;\n"
               "    ^\n"
               "candidate.cu(9): error: expected a \";\"\n"
               "(1 more error not shown)\n"
               "[cudaperf-eval] shim.cu calls the entry point; every implementation must define\n"
               "  extern \"C\" void f(float *x, cudaStream_t stream)");
}

TEST(Feedback, LinkerErrorsAndProcessIdsInTemporaryNames) {
  std::string log = "/usr/bin/ld: /tmp/tmpxft_00001d10_00000000-11_shim.o: in function `vector_add':\n"
                    "tmpxft_00001d10_00000000-6_shim.cudafe1.cpp:(.text+0x1d): undefined reference to `helper'\n"
                    "collect2: error: ld returned 1 exit status\n";
  std::string t = trimCompileLog(log, 3);
  EXPECT_EQ(t, "shim.cudafe1.cpp:(.text+0x1d): undefined reference to `helper'");
  EXPECT_EQ(withoutDirectories("see /a/b/c.cu:3 and (x/y) and \"/q/r.h\""), "see c.cu:3 and (x/y) and \"r.h\"");
}

TEST(Feedback, AnUnrecognisedLogKeepsItsFirstLines) {
  std::string t = trimCompileLog("nvcc fatal   : Unknown option '-foo'\n", 3);
  EXPECT_EQ(t, "nvcc fatal   : Unknown option '-foo'");
  EXPECT_EQ(trimCompileLog("something odd\nhappened\n", 3), "something odd\nhappened");
}

TEST(Feedback, NeverLongerThanTheLimit) {
  RewardConfig c;
  c.feedback.maxChars = 300;
  c.feedback.maxFindings = 10;
  std::vector<support::Json> diagnostics;
  for (int i = 0; i < 20; ++i)
    diagnostics.push_back({{"check", "cuda-uncoalesced-access"}, {"severity", "warning"},
                           {"message", std::string(200, 'x')}, {"kernel", "k"}, {"file", "cand.cu"},
                           {"line", i + 1}, {"column", 1}});
  rewardtest::ConfigSpec spec{"small", {rewardtest::LaunchSpec{}}, diagnostics};
  support::Json a = rewardtest::analysis({spec});
  auto doc = features::readAnalysis(a, "a.json");
  CandidateResult r = rewardFromDocuments(c, rewardtest::evalResult({{"small", 1, 2}}), "r.json", doc, std::nullopt,
                                          std::nullopt);
  EXPECT_LE(r.reward.feedback.size(), 300u);
  EXPECT_EQ(r.reward.feedback.rfind("Outcome: ok", 0), 0u) << r.reward.feedback;
  EXPECT_NE(r.reward.feedback.find("Speedup over the baseline: small 2.00x."), std::string::npos)
      << r.reward.feedback;
}

// A wrong answer's feedback names the findings that can explain it, a shared-memory race across loop
// iterations among them, and leaves performance findings out.
TEST(Feedback, AWrongAnswerNamesTheRaceThatCanExplainIt) {
  RewardConfig c;
  c.feedback.maxFindings = 5;
  std::vector<support::Json> diagnostics = {
      {{"check", "cuda-uncoalesced-access"}, {"severity", "warning"}, {"message", "strided (8.0x)"},
       {"kernel", "k"}, {"file", "cand.cu"}, {"line", 7}, {"column", 1}},
      {{"check", "cuda-shared-war-hazard"}, {"severity", "warning"},
       {"message", "tile[] is read here and overwritten in the next iteration without a barrier"},
       {"kernel", "k"}, {"file", "cand.cu"}, {"line", 12}, {"column", 1}}};
  rewardtest::ConfigSpec spec{"small", {rewardtest::LaunchSpec{}}, diagnostics};
  auto doc = features::readAnalysis(rewardtest::analysis({spec}), "a.json");
  CandidateResult r = rewardFromDocuments(c, rewardtest::evalResult({{"small", 1, 2}}, "wrong_answer"), "r.json", doc,
                                          std::nullopt, std::nullopt);
  EXPECT_EQ(r.reward.gate, Gate::WrongAnswer);
  EXPECT_NE(r.reward.feedback.find("[cuda-shared-war-hazard]"), std::string::npos) << r.reward.feedback;
  EXPECT_EQ(r.reward.feedback.find("[cuda-uncoalesced-access]"), std::string::npos) << r.reward.feedback;
}

// Findings are told costliest first (estimated_saving_us, issue 36): two findings listed in the
// wrong order, the cheaper one stating the larger factor, come out by their saving; a finding
// without an estimate follows those with one; a race leads even a passing candidate's list.
TEST(Feedback, FindingsAreOrderedByEstimatedSaving) {
  RewardConfig c;
  c.feedback.maxFindings = 5;
  auto finding = [](const char *check, int line, const char *message, std::optional<double> saving) {
    support::Json d = {{"check", check}, {"severity", "warning"}, {"message", message}, {"kernel", "k"},
                       {"file", "cand.cu"}, {"line", line}, {"column", 1}};
    if (saving)
      d["estimated_saving_us"] = *saving;
    return d;
  };
  std::vector<support::Json> diagnostics = {
      finding("cuda-uncoalesced-access", 7, "cheap strided load (8.0x)", 1.5),
      finding("cuda-shared-bank-conflict", 9, "no estimate (16.0x)", std::nullopt),
      finding("cuda-contended-atomic", 11, "costly atomic (2.0x)", 250.0),
      finding("cuda-shared-war-hazard", 13, "tile[] overwritten in the next iteration", std::nullopt)};
  rewardtest::ConfigSpec spec{"small", {rewardtest::LaunchSpec{}}, diagnostics};
  auto doc = features::readAnalysis(rewardtest::analysis({spec}), "a.json");
  ASSERT_EQ(doc.configurations.at(0).diagnostics.size(), 4u);
  EXPECT_EQ(doc.configurations[0].diagnostics[2].estimatedSavingUs, 250.0);
  EXPECT_FALSE(doc.configurations[0].diagnostics[1].estimatedSavingUs);
  CandidateResult r = rewardFromDocuments(c, rewardtest::evalResult({{"small", 1, 2}}), "r.json", doc, std::nullopt,
                                          std::nullopt);
  const std::string &f = r.reward.feedback;
  size_t race = f.find("- line 13 [cuda-shared-war-hazard]"), atomic = f.find("- line 11 [cuda-contended-atomic]"),
         strided = f.find("- line 7 [cuda-uncoalesced-access]"), bank = f.find("- line 9 [cuda-shared-bank-conflict]");
  ASSERT_NE(race, std::string::npos) << f;
  ASSERT_NE(atomic, std::string::npos) << f;
  ASSERT_NE(strided, std::string::npos) << f;
  ASSERT_NE(bank, std::string::npos) << f;
  EXPECT_LT(race, atomic) << f;
  EXPECT_LT(atomic, strided) << f;
  EXPECT_LT(strided, bank) << f;
  // With one finding allowed, the model is told of the race; without the race, of the costliest.
  c.feedback.maxFindings = 1;
  diagnostics.pop_back();
  spec.diagnostics = diagnostics;
  doc = features::readAnalysis(rewardtest::analysis({spec}), "a.json");
  r = rewardFromDocuments(c, rewardtest::evalResult({{"small", 1, 2}}), "r.json", doc, std::nullopt, std::nullopt);
  EXPECT_NE(r.reward.feedback.find("- line 11 [cuda-contended-atomic] costly atomic"), std::string::npos)
      << r.reward.feedback;
  EXPECT_EQ(r.reward.feedback.find("[cuda-uncoalesced-access]"), std::string::npos) << r.reward.feedback;
}
