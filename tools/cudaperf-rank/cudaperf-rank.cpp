// cudaperf-rank: the offline pairwise ranking model (docs/ranking.md). prepare turns measured
// implementations into examples (the analyzer through lib/Features), train fits a model with the
// RankNet loss, eval and cv compare it with the baselines on held-out families and tasks, score
// orders candidates that were never run, bench measures the scoring throughput.
#include "RankTool.h"

#include "cudaperf/Learn/RankingPrepare.h"

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
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace cudaperf;
using namespace cudaperf::learn;
using namespace cudaperf::ranktool;

namespace {

// --- prepare -----------------------------------------------------------------------------------

int runPrepare(const std::vector<std::string> &argv) {
  std::string dataset, tasks, out, analyzer, cache;
  std::vector<std::string> results;
  int jobs = 2;
  support::ArgParser p(std::string(kProgram) + " prepare",
                       {"--dataset DIR --results FILE... --out EXAMPLES.jsonl [options]",
                        "--tasks DIR --results FILE... --out EXAMPLES.jsonl [options]"},
                       "Ranking examples (one per implementation x configuration, schema cudaperf-rank-examples/1) "
                       "from measured implementations: the generated dataset's (results with dataset_task and "
                       "dataset_impl; .jsonl or .jsonl.zst) or the shipped tasks' (results matched by the SHA-256 of "
                       "impls/*.cu). Every implementation is analysed once (cudaperf-analyze --task), cached in --cache.");
  p.option("--dataset", "DIR", "the generated dataset (cudaperf-dataset generate, the seed that was measured)", dataset);
  p.option("--tasks", "DIR", "task folders (data/tasks) instead of a dataset", tasks);
  p.option("--results", "FILE", "cudaperf-eval results (repeatable)", collectInto(results));
  p.option("--out", "FILE", "the examples file to write", out);
  p.option("--cache", "DIR", "analysis documents by SHA-256 (default: none)", cache);
  p.option("--analyzer", "PATH", "cudaperf-analyze (default: beside this program, then PATH)", analyzer);
  p.option("--jobs", "N", "analyses at once (default 2)", integerInto(jobs, 1, 256));
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  if (out.empty() || results.empty() || dataset.empty() == tasks.empty())
    throw support::UsageError("give --out, at least one --results, and one of --dataset and --tasks");
  auto start = Clock::now();
  rank::PrepareReport report;
  rank::PrepareOptions options = prepareOptions(analyzer, cache, jobs);
  std::vector<RankExample> examples = dataset.empty() ? rank::prepareShipped(tasks, results, options, report)
                                                      : rank::prepareDataset(dataset, results, options, report);
  std::ostringstream text;
  for (const RankExample &e : examples) text << rankExampleToJsonLine(e) << "\n";
  writeText(out, text.str());
  for (const std::string &problem : report.problems) progress("skipped: " + problem);
  std::set<std::string> taskNames;
  for (const RankExample &e : examples) taskNames.insert(e.task);
  std::cout << kProgram << " prepare: " << report.results << " results, " << report.candidates << " candidates of "
            << taskNames.size() << " tasks -> " << report.examples << " examples in " << out << " (" << report.analysed
            << " analysed, " << report.cached << " cached, " << report.unmatched << " unmatched, " << report.duplicates
            << " superseded, " << report.failed << " failed; " << std::fixed << std::setprecision(1)
            << secondsSince(start) << " s)\n";
  if (examples.empty()) throw LearnError("no examples: nothing of the results matched (see the skipped lines above)");
  return kExitOk;
}

// --- training ----------------------------------------------------------------------------------

int runTrain(const std::vector<std::string> &argv) {
  TrainArgs a;
  support::ArgParser p(std::string(kProgram) + " train", {"--examples FILE --out DIR [options]"},
                       "Trains a ranking model on the dataset's train split (held-out families never) with the "
                       "RankNet loss over labelled pairs; the val split is measured each epoch. Writes DIR/config.json, "
                       "DIR/model.safetensors, DIR/curve.json, DIR/curve.svg (and DIR/tokenizer.json for tokens).");
  addTrainOptions(p, a);
  p.option("--out", "DIR", "checkpoint folder", a.out);
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  if (a.out.empty()) throw support::UsageError("--out is required");
  torch::set_num_threads(a.threads);
  std::vector<RankExample> examples = readAllExamples(a.examples);
  std::set<std::string> excluded(a.excludeFamilies.begin(), a.excludeFamilies.end());
  std::shared_ptr<const Tokenizer> tokenizer;
  if (parseRankModelKind(a.kind) == RankModelKind::Tokens) tokenizer = tokenizerFor(a);
  Trained t = trainModel(
      a, examples, [&](const RankExample &e) { return isTrainingSplit(e, excluded); },
      [&](const RankExample &e) { return e.set == "dataset" && e.split == "val" && !excluded.count(e.family); },
      tokenizer, std::max(1, a.epochs / 10));
  t.model.save(a.out);
  Json curve = Json::array();
  PlotSeries trainSeries{"train loss", {}}, validationSeries{"validation loss", {}}, accuracySeries{"validation pair accuracy", {}};
  for (const RankCurvePoint &c : t.curve) {
    curve.push_back({{"epoch", c.epoch}, {"train_loss", c.trainLoss}, {"validation_loss", numberOrNull(c.validationLoss)},
                     {"validation_pair_accuracy", numberOrNull(c.validationAccuracy)}});
    trainSeries.points.emplace_back(c.epoch, c.trainLoss);
    validationSeries.points.emplace_back(c.epoch, c.validationLoss);
    accuracySeries.points.emplace_back(c.epoch, c.validationAccuracy);
  }
  writeText((fs::path(a.out) / "curve.json").string(), support::writeJson(curve) + "\n");
  PlotOptions plot;
  plot.title = std::string("cudaperf-rank train --model ") + a.kind + " (seed " + std::to_string(a.seed) + ")";
  plot.xLabel = "epoch";
  plot.yLabel = "RankNet loss / pair accuracy";
  writeSvgLinePlot((fs::path(a.out) / "curve.svg").string(), {trainSeries, validationSeries, accuracySeries}, plot);
  std::cout << kProgram << " train: " << a.kind << ", " << t.model.parameterCount() << " parameters, "
            << t.model.config().training["groups"].get<size_t>() << " groups, " << t.pairs << " labelled pairs of "
            << t.model.config().training["tasks"].get<size_t>() << " tasks; final train loss " << t.curve.back().trainLoss
            << "; " << std::fixed << std::setprecision(1) << t.seconds << " s on " << a.device << " -> " << a.out << "\n";
  return kExitOk;
}

} // namespace

int main(int argc, char **argv) {
  return runSubcommands(kProgram, argc, argv,
                        {{"prepare", "examples from measured implementations (runs the analyzer)", runPrepare},
                         {"train", "train a ranking model (RankNet loss) on the train split", runTrain},
                         {"eval", "checkpoints beside the baselines on the held-out sets", runEval},
                         {"cv", "leave-one-family-out cross-validation of a model kind", runCrossValidation},
                         {"score", "order candidates of a task without running them", runScore},
                         {"bench", "scoring throughput", runBench}});
}
