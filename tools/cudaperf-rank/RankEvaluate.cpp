// cudaperf-rank eval and cv: checkpoints and model kinds beside the baselines on the held-out sets (docs/ranking.md).
#include "RankTool.h"


#include "cudaperf/Learn/RankingModel.h"
#include "cudaperf/Learn/RankingScorer.h"
#include "cudaperf/Learn/SvgPlot.h"
#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Learn/Transformer.h" // parseDevice
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Sha256.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <iomanip>
#include <map>
#include <iostream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace cudaperf;
using namespace cudaperf::learn;

namespace cudaperf::ranktool {

int runEval(const std::vector<std::string> &argv) {
  std::vector<std::string> examplesFiles, checkpoints;
  std::string jsonOut, markdownOut, device = "cpu";
  int threads = 1;
  support::ArgParser p(std::string(kProgram) + " eval", {"--examples FILE... --checkpoint DIR... [--json OUT] [--markdown OUT]"},
                       "Every checkpoint beside the baselines (chance, the analyzer's roofline time, the reward's "
                       "static-only score) on each evaluation set: held-out families, held-out tasks, validation, the "
                       "shipped tasks, and the training split as a sanity check. Metrics: pairwise accuracy over "
                       "pairs that differ by 10% or more and lie outside timing noise, Kendall's tau-b per group, "
                       "top-1 regret (time of the top-scored implementation over the fastest, minus 1).");
  p.option("--examples", "FILE", "examples (repeatable: the dataset's and the shipped tasks')", collectInto(examplesFiles));
  p.option("--checkpoint", "DIR", "a trained model (repeatable)", collectInto(checkpoints));
  p.option("--json", "FILE", "write the report (schema cudaperf-rank-eval/1)", jsonOut);
  p.option("--markdown", "FILE", "write the tables", markdownOut);
  p.option("--threads", "N", "LibTorch CPU threads (default 1)", integerInto(threads, 1, 256));
  p.option("--device", "DEV", "cpu (default) or cuda", device);
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  torch::set_num_threads(threads);
  std::vector<RankExample> examples = readAllExamples(examplesFiles);
  std::vector<Method> methods = baselineMethods(examples);
  Json models = Json::array();
  for (const std::string &dir : checkpoints) {
    RankModel model = RankModel::load(dir, parseDevice(device));
    std::string name = std::string(rankModelKindName(model.config().kind)) + " (" + fs::path(dir).filename().string() + ")";
    methods.push_back({name, model.scores(examples)});
    models.push_back({{"name", name}, {"checkpoint", dir}, {"training", model.config().training}});
  }
  Json sets = Json::array();
  std::string markdown;
  for (const EvalSet &set : evaluationSets()) {
    std::vector<RankGroup> groups = rankGroups(examples, set.keep);
    if (groups.empty()) continue;
    Json results = Json::object();
    markdown += "**" + set.name + "** (" + set.description + "): ";
    Json coverage = coverageJson(examples, groups);
    markdown += std::to_string(coverage["tasks"].get<size_t>()) + " tasks of " +
                std::to_string(coverage["families"].size()) + " families\n\n" + kMarkdownHeader;
    for (const Method &m : methods) {
      RankMetrics metrics = evaluateScores(examples, groups, m.scores);
      results[m.name] = metricsJson(metrics);
      markdown += markdownRow(m.name, metrics);
    }
    markdown += "\n";
    sets.push_back({{"name", set.name}, {"description", set.description}, {"coverage", coverage}, {"methods", results}});
  }
  Json report = {{"schema", kEvalSchema}, {"examples", examplesFiles}, {"models", models}, {"sets", sets},
                 {"tie_rule", {{"min_log", TieRule{}.minLog}, {"spread_factor", TieRule{}.spreadFactor}}},
                 {"min_ratio", RankMetrics{}.minRatio}};
  if (!jsonOut.empty()) writeText(jsonOut, support::writeJson(report, 1) + "\n");
  if (!markdownOut.empty()) writeText(markdownOut, markdown);
  std::cout << markdown;
  return kExitOk;
}

// Leave-one-family-out over the dataset's measured families: for each family, a model trained on
// every other family (all splits) ranks that family's groups; the folds' metrics are pooled.
int runCrossValidation(const std::vector<std::string> &argv) {
  TrainArgs a;
  a.epochs = 300;
  std::string jsonOut, markdownOut;
  support::ArgParser p(std::string(kProgram) + " cv", {"--examples FILE --model KIND [options] [--json OUT]"},
                       "Leave-one-family-out cross-validation over the dataset's measured families (every split): "
                       "one model per family, trained on all the others; metrics pooled over the folds, beside the "
                       "baselines on the same groups.");
  addTrainOptions(p, a);
  p.option("--json", "FILE", "write the report (schema cudaperf-rank-eval/1, set leave_family_out)", jsonOut);
  p.option("--markdown", "FILE", "write the table", markdownOut);
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  torch::set_num_threads(a.threads);
  auto start = Clock::now();
  std::vector<RankExample> examples = readAllExamples(a.examples);
  auto inDataset = [](const RankExample &e) { return e.set == "dataset"; };
  std::vector<RankGroup> all = rankGroups(examples, inDataset);
  std::vector<std::string> families = familiesOf(examples, all);
  if (families.size() < 2) throw LearnError("cross-validation needs measured groups of two families or more");
  std::shared_ptr<const Tokenizer> tokenizer;
  if (parseRankModelKind(a.kind) == RankModelKind::Tokens) tokenizer = tokenizerFor(a);
  std::vector<Method> baselines = baselineMethods(examples);
  std::vector<double> modelScores(examples.size(), std::nan(""));
  Json perFamily = Json::object();
  for (size_t f = 0; f < families.size(); ++f) {
    const std::string &family = families[f];
    Trained t = trainModel(
        a, examples, [&](const RankExample &e) { return e.set == "dataset" && e.family != family; },
        [](const RankExample &) { return false; }, tokenizer, 0);
    std::vector<RankGroup> held = rankGroups(examples, [&](const RankExample &e) { return e.set == "dataset" && e.family == family; });
    std::vector<RankExample> heldExamples;
    for (const RankGroup &g : held)
      for (size_t i : g.members) heldExamples.push_back(examples[i]);
    std::vector<double> s = t.model.scores(heldExamples);
    size_t k = 0;
    for (const RankGroup &g : held)
      for (size_t i : g.members) modelScores[i] = s[k++];
    RankMetrics m = evaluateScores(examples, held, modelScores);
    perFamily[family] = metricsJson(m);
    progress("fold " + std::to_string(f + 1) + "/" + std::to_string(families.size()) + " (" + family + "): pair accuracy " +
             percent(m.pairAccuracy()) + " over " + std::to_string(m.pairs) + " pairs, " +
             std::to_string(int(secondsSince(start))) + " s");
  }
  std::vector<Method> methods = baselines;
  methods.push_back({a.kind + (a.staticScoreInput ? "+static" : "") + " (leave-family-out)", modelScores});
  Json results = Json::object();
  std::string markdown = "**leave_family_out** (" + std::to_string(families.size()) + " folds, one per measured family; " +
                         "each model trained on the other families' tasks of every split)\n\n" + kMarkdownHeader;
  for (const Method &m : methods) {
    RankMetrics metrics = evaluateScores(examples, all, m.scores);
    results[m.name] = metricsJson(metrics);
    markdown += markdownRow(m.name, metrics);
  }
  Json report = {{"schema", kEvalSchema}, {"examples", a.examples}, {"model", a.kind},
                 {"options", {{"epochs", a.epochs}, {"learning_rate", a.lr}, {"weight_decay", a.weightDecay},
                              {"hidden", a.hidden}, {"seed", a.seed}, {"counters", a.counters},
                              {"static_score_input", a.staticScoreInput}}},
                 {"sets", Json::array({{{"name", "leave_family_out"}, {"coverage", coverageJson(examples, all)},
                                        {"methods", results}, {"per_family", perFamily}}})},
                 {"seconds", secondsSince(start)}};
  if (!jsonOut.empty()) writeText(jsonOut, support::writeJson(report, 1) + "\n");
  if (!markdownOut.empty()) writeText(markdownOut, markdown);
  std::cout << markdown;
  return kExitOk;
}
} // namespace cudaperf::ranktool
