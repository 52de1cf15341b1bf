#include "cudaperf/Learn/RankingCandidates.h"

#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/RewardConfig.h"
#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Sha256.h"

#include <cmath>
#include <filesystem>

namespace cudaperf::learn {

namespace fs = std::filesystem;
using support::Json;

double rankStaticScore(const features::AnalysisDocument &analysis,
                       const std::optional<features::AnalysisDocument> &baseline, const std::string &sourceSha256,
                       const std::string &candidatePath, const std::string &configuration) {
  reward::RewardConfig config;
  config.learned.weight = 0; // as trained (see the header)
  config.speedup.defaultConfigurationWeight = 0;
  config.speedup.configurationWeights = {{configuration, 1.0}};
  schema::EvalResult view;
  view.task = analysis.task ? analysis.task->name : "";
  view.candidate = candidatePath;
  view.candidateSha256 = sourceSha256;
  view.compile.emplace();
  view.compile->ok = true;
  view.compile->arch = analysis.arch;
  view.outcome = schema::Outcome::Ok;
  view.detail = "compiled (--compile-only: not run)";
  view.speedup = std::optional<double>();
  view.compileOnly = true;
  Json compileOnly = view.toJson();
  try {
    reward::CandidateResult r =
        reward::rewardFromDocuments(config, compileOnly, "static view", analysis, baseline, std::nullopt);
    return r.reward.total.value_or(std::nan(""));
  } catch (const std::exception &) {
    return std::nan("");
  }
}

std::vector<RankExample> rankExamplesFromAnalysis(const features::AnalysisDocument &analysis,
                                                  const std::optional<features::AnalysisDocument> &baseline,
                                                  const std::optional<features::EvalResult> &result,
                                                  const RankExample &meta, const std::string &sourcePath,
                                                  const std::string &sourceText) {
  std::string sha = support::sha256Hex(sourceText);
  features::FeatureSet set(analysis, result, "all");
  const auto &specs = features::configurationFeatureSpecs();
  std::vector<RankExample> out;
  for (const features::ConfigurationRecord &record : set.records()) {
    RankExample e = meta;
    e.configuration = record.analysis ? record.analysis->name : "";
    e.sourcePath = fs::absolute(sourcePath).lexically_normal().string();
    e.sourceSha256 = sha;
    e.sourceText = sourceText;
    for (size_t i = 0; i < specs.size(); ++i)
      e.features[specs[i].name] = record.features.values[i].value_or(std::nan(""));
    if (result) {
      e.outcome = result->outcomeText();
      e.correct = e.features["correct"] == 1.0;
      e.medianMs = e.features["median_ms"];
      e.spread = e.features["spread"];
    }
    e.rooflineUs = e.features["total_roofline_time_us"];
    e.staticScore = rankStaticScore(analysis, baseline, sha, sourcePath, e.configuration);
    out.push_back(std::move(e));
  }
  return out;
}

} // namespace cudaperf::learn
