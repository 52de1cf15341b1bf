// cudaperf-rank: the offline pairwise ranking model (docs/ranking.md). prepare turns measured
// implementations into examples (the analyzer through lib/Features), train fits a model with the
// RankNet loss, eval and cv compare it with the baselines on held-out families and tasks, score
// orders candidates that were never run, bench measures the scoring throughput.
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
using support::Json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char *kProgram = "cudaperf-rank";
constexpr const char *kEvalSchema = "cudaperf-rank-eval/1";
constexpr const char *kScoresSchema = "cudaperf-rank-scores/1";

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
void progress(const std::string &line) { std::cerr << kProgram << ": " << line << "\n"; }
Json numberOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

std::function<void(const std::string &)> integerInto(int &target, int lo, int hi) {
  return [&target, lo, hi](const std::string &v) { target = int(support::parseInteger(v, lo, hi)); };
}
std::function<void(const std::string &)> numberInto(double &target, double lo, double hi) {
  return [&target, lo, hi](const std::string &v) { target = support::parseNumber(v, lo, hi); };
}
std::function<void(const std::string &)> collectInto(std::vector<std::string> &target) {
  return [&target](const std::string &v) { target.push_back(v); };
}

std::vector<RankExample> readAllExamples(const std::vector<std::string> &files) {
  if (files.empty()) throw support::UsageError("--examples is required (cudaperf-rank prepare writes it)");
  std::vector<RankExample> all;
  for (const std::string &f : files) {
    std::vector<RankExample> e = readRankExamples(f);
    all.insert(all.end(), e.begin(), e.end());
  }
  return all;
}

void writeText(const std::string &path, const std::string &text) {
  if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw LearnError(path + ": cannot write");
}

rank::PrepareOptions prepareOptions(const std::string &analyzer, const std::string &cache, int jobs) {
  rank::PrepareOptions o;
  o.analyzerPath = analyzer;
  o.cacheDir = cache;
  o.jobs = jobs;
  o.progress = progress;
  return o;
}

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

struct TrainArgs {
  std::vector<std::string> examples;
  std::string out, kind = "mlp", tokenizerFile, tokenizerCorpus, device = "cpu", plot;
  int epochs = 300, hidden = 32, threads = 1, validateEvery = 1, vocab = 2048, maxTokens = 512, corpusLimit = 4000;
  double lr = 0.01, weightDecay = 1e-4;
  uint64_t seed = 1;
  bool counters = false, staticScoreInput = false;
  std::vector<std::string> excludeFamilies;
};

void addTrainOptions(support::ArgParser &p, TrainArgs &a) {
  p.option("--examples", "FILE", "examples (cudaperf-rank prepare; repeatable)", collectInto(a.examples));
  p.option("--model", "KIND", "linear, mlp (default) or tokens (features + the source through a BPE encoder)", a.kind);
  p.option("--epochs", "N", "full-batch Adam steps (default 300)", integerInto(a.epochs, 1, 1000000));
  p.option("--lr", "X", "learning rate (default 0.01)", numberInto(a.lr, 0, 10));
  p.option("--weight-decay", "X", "Adam weight decay (default 1e-4)", numberInto(a.weightDecay, 0, 10));
  p.option("--hidden", "N", "hidden width of mlp and tokens (default 32)", integerInto(a.hidden, 1, 4096));
  p.option("--seed", "N", "seed of the initial weights (default 1)", [&](const std::string &v) { a.seed = support::parseUnsigned(v); });
  p.flag("--counters", "also the CUPTI counter features (not the measured duration) where the examples have them", a.counters);
  p.flag("--static-score-input", "also the reward's static score at the configuration (the reward_static_score baseline) "
         "as an input", a.staticScoreInput);
  p.option("--tokenizer", "FILE", "tokens: a tokenizer.json to use", a.tokenizerFile);
  p.option("--tokenizer-corpus", "DIR", "tokens: train a byte-level BPE on this dataset's train split", a.tokenizerCorpus);
  p.option("--vocab", "N", "tokens: BPE vocabulary (default 2048)", integerInto(a.vocab, 300, 1 << 20));
  p.option("--corpus-files", "N", "tokens: at most N sources for the BPE (default 4000)", integerInto(a.corpusLimit, 1, 1 << 30));
  p.option("--max-tokens", "N", "tokens: tokens kept per source, head and tail (default 512)", integerInto(a.maxTokens, 16, 1 << 20));
  p.option("--exclude-family", "NAME", "leave this family out of training (repeatable)", collectInto(a.excludeFamilies));
  p.option("--validate-every", "N", "validation loss every N epochs (default 1)", integerInto(a.validateEvery, 1, 1 << 30));
  p.option("--threads", "N", "LibTorch CPU threads (default 1: the models are small; more threads cost more than they give)",
           integerInto(a.threads, 1, 256));
  p.option("--device", "DEV", "cpu (default) or cuda", a.device);
}

std::shared_ptr<const Tokenizer> tokenizerFor(const TrainArgs &a) {
  if (!a.tokenizerFile.empty()) return std::make_shared<const Tokenizer>(Tokenizer::fromFile(a.tokenizerFile));
  if (a.tokenizerCorpus.empty())
    throw support::UsageError("--model tokens needs --tokenizer FILE or --tokenizer-corpus DATASET_DIR");
  auto start = Clock::now();
  std::vector<std::string> texts = rank::trainingSources(a.tokenizerCorpus, size_t(a.corpusLimit));
  if (texts.empty()) throw LearnError(a.tokenizerCorpus + ": no implementation sources in the train split");
  BpeTrainingOptions o;
  o.vocabSize = size_t(a.vocab);
  auto tokenizer = std::make_shared<const Tokenizer>(trainByteLevelBpe(texts, o));
  progress("BPE tokenizer: " + std::to_string(tokenizer->vocabSize()) + " tokens from " + std::to_string(texts.size()) +
           " train-split sources in " + std::to_string(int(secondsSince(start))) + " s");
  return tokenizer;
}

struct Trained {
  RankModel model;
  std::vector<RankCurvePoint> curve;
  size_t pairs = 0;
  double seconds = 0;
};

std::vector<std::string> familiesOf(const std::vector<RankExample> &examples, const std::vector<RankGroup> &groups) {
  std::set<std::string> f;
  for (const RankGroup &g : groups) f.insert(examples[g.members.front()].family);
  return {f.begin(), f.end()};
}

// Trains on the groups `inTraining` accepts (validation: `inValidation`); quiet unless logEvery.
Trained trainModel(const TrainArgs &a, const std::vector<RankExample> &examples,
                   const std::function<bool(const RankExample &)> &inTraining,
                   const std::function<bool(const RankExample &)> &inValidation,
                   std::shared_ptr<const Tokenizer> tokenizer, int logEvery) {
  auto start = Clock::now();
  std::vector<RankGroup> train = rankGroups(examples, inTraining), validation = rankGroups(examples, inValidation);
  if (train.empty()) throw LearnError("no training groups (two or more correct implementations of a task at a configuration)");
  std::vector<RankExample> trainExamples;
  for (const RankGroup &g : train)
    for (size_t i : g.members) trainExamples.push_back(examples[i]);
  RankModelConfig config;
  config.kind = parseRankModelKind(a.kind);
  config.hidden = a.hidden;
  config.seed = a.seed;
  config.maxTokens = a.maxTokens;
  config.inputs = fitFeatureInputs(rank::rankInputFeatures(a.counters, a.staticScoreInput), rank::rankFeatureIsMagnitude, trainExamples);
  RankModel model(config, config.kind == RankModelKind::Tokens ? tokenizer : nullptr);
  model.to(parseDevice(a.device));
  RankTrainOptions o;
  o.epochs = a.epochs;
  o.learningRate = a.lr;
  o.weightDecay = a.weightDecay;
  o.logEvery = logEvery;
  o.validateEvery = a.validateEvery;
  o.progress = progress;
  std::vector<RankCurvePoint> curve = trainRankModel(model, examples, train, validation, o);
  size_t pairs = 0;
  for (const RankGroup &g : train) pairs += labelledPairs(examples, g, o.tie).size();
  double seconds = secondsSince(start);
  std::set<std::string> tasks;
  for (const RankExample &e : trainExamples) tasks.insert(e.task);
  model.mutableConfig().training = {
      {"examples", a.examples}, {"tasks", tasks.size()}, {"groups", train.size()}, {"pairs", pairs},
      {"families", familiesOf(examples, train)}, {"validation_groups", validation.size()},
      {"epochs", a.epochs}, {"learning_rate", a.lr}, {"weight_decay", a.weightDecay}, {"counters", a.counters},
      {"static_score_input", a.staticScoreInput}, {"excluded_families", a.excludeFamilies}, {"final_train_loss", curve.back().trainLoss}, {"selected_epoch", curve.back().selectedEpoch},
      {"seconds", seconds}, {"device", a.device}, {"threads", a.threads}, {"libtorch", compat::versionText()},
      {"parameters", model.parameterCount()}};
  return {std::move(model), std::move(curve), pairs, seconds};
}

bool isTrainingSplit(const RankExample &e, const std::set<std::string> &excluded) {
  return e.set == "dataset" && e.split == "train" && !e.heldOutFamily && !excluded.count(e.family);
}

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

// --- evaluation --------------------------------------------------------------------------------

struct EvalSet {
  std::string name, description;
  std::function<bool(const RankExample &)> keep;
};

std::vector<EvalSet> evaluationSets() {
  return {
      {"held_out_families", "dataset, families never trained on (test split of held-out families)",
       [](const RankExample &e) { return e.set == "dataset" && e.heldOutFamily; }},
      {"held_out_tasks", "dataset, test split of training families (parameters no training task has)",
       [](const RankExample &e) { return e.set == "dataset" && e.split == "test" && !e.heldOutFamily; }},
      {"validation", "dataset, val split (measured during training, not trained on)",
       [](const RankExample &e) { return e.set == "dataset" && e.split == "val"; }},
      {"shipped_tasks", "data/tasks with their stored H200 results",
       [](const RankExample &e) { return e.set == "shipped"; }},
      {"training", "dataset, train split (seen in training: a sanity check, not a result)",
       [](const RankExample &e) { return e.set == "dataset" && e.split == "train" && !e.heldOutFamily; }},
  };
}

// A method: a name and a score per example (higher = faster).
struct Method {
  std::string name;
  std::vector<double> scores;
};

std::vector<Method> baselineMethods(const std::vector<RankExample> &examples) {
  Method chance{"chance", std::vector<double>(examples.size(), 0.0)};
  Method roofline{"roofline_time", {}}, reward{"reward_static_score", {}};
  for (const RankExample &e : examples) {
    roofline.scores.push_back(std::isfinite(e.rooflineUs) && e.rooflineUs > 0 ? -std::log(e.rooflineUs) : std::nan(""));
    reward.scores.push_back(e.staticScore);
  }
  return {chance, roofline, reward};
}

Json metricsJson(const RankMetrics &m) {
  return {{"groups", m.groups},
          {"pairs", m.pairs},
          {"pair_accuracy", numberOrNull(m.pairAccuracy())},
          {"kendall_tau", numberOrNull(m.kendallTau())},
          {"top1_regret", numberOrNull(m.top1Regret())},
          {"top1_geometric_regret", numberOrNull(m.top1GeometricRegret())},
          {"top1_best_rate", numberOrNull(m.top1Rate())}};
}

Json coverageJson(const std::vector<RankExample> &examples, const std::vector<RankGroup> &groups) {
  std::map<std::string, std::set<std::string>> tasksByFamily;
  for (const RankGroup &g : groups)
    for (size_t i : g.members) tasksByFamily[examples[i].family].insert(examples[i].task);
  Json families = Json::object();
  size_t tasks = 0;
  for (const auto &[family, t] : tasksByFamily) {
    families[family] = Json(std::vector<std::string>(t.begin(), t.end()));
    tasks += t.size();
  }
  return {{"tasks", tasks}, {"families", families}};
}

std::string percent(double v) {
  if (!std::isfinite(v)) return "–";
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100 * v << "%";
  return s.str();
}
std::string fixed3(double v) {
  if (!std::isfinite(v)) return "–";
  std::ostringstream s;
  s << std::fixed << std::setprecision(3) << v;
  return s.str();
}

std::string markdownRow(const std::string &method, const RankMetrics &m) {
  return "| " + method + " | " + std::to_string(m.groups) + " | " + std::to_string(m.pairs) + " | " +
         percent(m.pairAccuracy()) + " | " + fixed3(m.kendallTau()) + " | " + percent(m.top1GeometricRegret()) + " | " +
         percent(m.top1Regret()) + " | " + percent(m.top1Rate()) + " |\n";
}
const char *kMarkdownHeader = "| method | groups | pairs ≥ 10% | pair accuracy | Kendall τ | top-1 regret (geo) | top-1 regret (mean) | top-1 best |\n"
                              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";

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

// --- scoring -----------------------------------------------------------------------------------

int runScore(const std::vector<std::string> &argv) {
  std::string checkpoint, configuration = "all", format = "text", analyzer, cache, device = "cpu";
  int top = 3, jobs = 2;
  support::ArgParser p(std::string(kProgram) + " score", {"TASK_DIR CANDIDATE.cu... --checkpoint DIR [options]"},
                       "Orders candidates without running them: each is analysed at every configuration of the task "
                       "(cudaperf-analyze --task, lib/Features), scored by the model, and printed best first with the "
                       "features that weighed most (gradient x input of the standardized feature).");
  p.option("--checkpoint", "DIR", "a trained model (cudaperf-rank train; default: the shipped "
           "data/ranking/checkpoints/mlp-static)", checkpoint);
  p.option("--config", "NAME", "one configuration (default all)", configuration);
  p.option("--top", "N", "features shown per candidate (default 3)", integerInto(top, 0, 1000));
  p.option("--format", "FMT", "text (default) or json (schema cudaperf-rank-scores/1)", format);
  p.option("--analyzer", "PATH", "cudaperf-analyze (default: beside this program, then PATH)", analyzer);
  p.option("--cache", "DIR", "analysis documents by SHA-256 (default: none)", cache);
  p.option("--jobs", "N", "analyses at once (default 2)", integerInto(jobs, 1, 256));
  p.option("--device", "DEV", "cpu (default) or cuda", device);
  support::ParsedArgs parsed = p.parse(argv);
  if (parsed.helpRequested) return std::cout << p.help(), kExitOk;
  if (parsed.positional.size() < 2) throw support::UsageError("give the task folder and at least one candidate");
  if (checkpoint.empty()) checkpoint = defaultRankCheckpoint();
  if (format != "text" && format != "json") throw support::UsageError("--format: expected text or json, got '" + format + "'");
  torch::set_num_threads(1);
  RankModel model = RankModel::load(checkpoint, parseDevice(device));
  std::string taskDir = parsed.positional[0];
  std::vector<std::string> candidates(parsed.positional.begin() + 1, parsed.positional.end());
  std::vector<RankExample> examples = rank::prepareCandidates(taskDir, candidates, prepareOptions(analyzer, cache, jobs));
  if (configuration != "all") {
    std::vector<RankExample> kept;
    for (RankExample &e : examples)
      if (e.configuration == configuration) kept.push_back(std::move(e));
    if (kept.empty()) throw LearnError(taskDir + ": the task has no configuration '" + configuration + "'");
    examples = std::move(kept);
  }
  // Scores are differences within a task and configuration; against the task's impls/baseline.cu they
  // become one number per candidate (the reward's --ranking-score): the mean over configurations. The
  // baseline among the candidates (by content) keeps its own scores, so its difference is exactly 0.
  std::string baseSha;
  std::vector<RankExample> base;
  fs::path baseline = fs::path(taskDir) / "impls" / "baseline.cu";
  if (fs::exists(baseline)) {
    std::ifstream in(baseline, std::ios::binary);
    baseSha = support::sha256Hex(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
    bool among = std::any_of(examples.begin(), examples.end(), [&](const RankExample &e) { return e.sourceSha256 == baseSha; });
    if (!among) base = rank::prepareCandidates(taskDir, {baseline.string()}, prepareOptions(analyzer, cache, jobs));
  }
  RankScoring scoring = scoreAgainstBaseline(model, examples, baseSha, base, size_t(top));
  const std::vector<double> &scores = scoring.scores;
  const auto &attributions = scoring.attributions;
  std::map<std::string, std::vector<size_t>> byConfig;
  std::vector<std::string> order;
  for (size_t i = 0; i < examples.size(); ++i) {
    if (!byConfig.count(examples[i].configuration)) order.push_back(examples[i].configuration);
    byConfig[examples[i].configuration].push_back(i);
  }
  Json configs = Json::array();
  std::ostringstream text;
  text << std::fixed;
  for (const std::string &c : order) {
    std::vector<size_t> idx = byConfig[c];
    std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return scores[x] > scores[y]; });
    Json ranking = Json::array();
    text << "configuration " << c << ":\n";
    for (size_t r = 0; r < idx.size(); ++r) {
      size_t i = idx[r];
      Json features = Json::array();
      text << "  " << r + 1 << ". " << std::setprecision(3) << std::showpos << scores[i] << std::noshowpos << "  "
           << examples[i].implementation << "\n";
      for (const auto &at : attributions[i]) {
        features.push_back({{"feature", at.feature}, {"value", numberOrNull(at.value)}, {"contribution", at.contribution}});
        text << "       " << std::setprecision(3) << std::showpos << at.contribution << std::noshowpos << "  " << at.feature
             << " = " << (std::isfinite(at.value) ? std::to_string(at.value) : std::string("missing")) << "\n";
      }
      ranking.push_back({{"rank", r + 1}, {"candidate", examples[i].implementation}, {"score", scores[i]},
                         {"static_score", numberOrNull(examples[i].staticScore)},
                         {"roofline_time_us", numberOrNull(examples[i].rooflineUs)}, {"top_features", features}});
    }
    configs.push_back({{"name", c}, {"ranking", ranking}});
  }
  Json versusBaseline = Json::array();
  if (!scoring.versusBaseline.empty())
    text << "versus impls/baseline.cu (mean score difference over configurations; the reward's --ranking-score):\n";
  for (const RankScoring::Versus &v : scoring.versusBaseline) {
    Json features = Json::array();
    for (const auto &[feature, contribution] : v.topFeatures) features.push_back({{"feature", feature}, {"contribution", contribution}});
    versusBaseline.push_back({{"candidate", v.candidate}, {"mean_score_vs_baseline", v.meanScore},
                              {"configurations", v.configurations}, {"top_features", features}});
    text << "  " << std::setprecision(3) << std::showpos << v.meanScore << std::noshowpos << "  " << v.candidate << "\n";
  }
  if (format == "json")
    std::cout << support::writeJson(Json{{"schema", kScoresSchema}, {"task", taskDir}, {"checkpoint", checkpoint},
                                         {"model", rankModelKindName(model.config().kind)}, {"configurations", configs},
                                         {"versus_baseline", versusBaseline}},
                                    1)
              << "\n";
  else
    std::cout << text.str();
  return kExitOk;
}

// Scoring throughput of a checkpoint on prepared examples (the analysis excluded: prepare's cost).
int runBench(const std::vector<std::string> &argv) {
  std::vector<std::string> examplesFiles;
  std::string checkpoint, device = "cpu", jsonOut;
  int count = 20000, batchSize = 1024, threads = 1;
  support::ArgParser p(std::string(kProgram) + " bench", {"--examples FILE --checkpoint DIR [options]"},
                       "Candidates scored per second from prepared examples: in batches (features to tensors, the "
                       "forward pass, scores back) and one at a time.");
  p.option("--examples", "FILE", "examples (repeatable)", collectInto(examplesFiles));
  p.option("--checkpoint", "DIR", "the model", checkpoint);
  p.option("--count", "N", "candidates scored in batches (default 20000)", integerInto(count, 1, 1 << 30));
  p.option("--batch", "N", "batch size (default 1024)", integerInto(batchSize, 1, 1 << 24));
  p.option("--threads", "N", "LibTorch CPU threads (default 1)", integerInto(threads, 1, 256));
  p.option("--device", "DEV", "cpu (default) or cuda", device);
  p.option("--json", "FILE", "write the measurement", jsonOut);
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  if (checkpoint.empty()) throw support::UsageError("--checkpoint is required");
  torch::set_num_threads(threads);
  std::vector<RankExample> pool = readAllExamples(examplesFiles);
  RankModel model = RankModel::load(checkpoint, parseDevice(device));
  std::vector<RankExample> batch;
  for (int i = 0; i < batchSize; ++i) batch.push_back(pool[size_t(i) % pool.size()]);
  model.scores(batch); // warm-up (and the token cache)
  auto start = Clock::now();
  int scored = 0;
  while (scored < count) {
    model.scores(batch);
    scored += batchSize;
  }
  double batched = scored / secondsSince(start);
  int single = std::min(count, 2000);
  start = Clock::now();
  for (int i = 0; i < single; ++i) model.scores({pool[size_t(i) % pool.size()]});
  double oneByOne = single / secondsSince(start);
  Json j = {{"schema", "cudaperf-rank-bench/1"}, {"model", rankModelKindName(model.config().kind)},
            {"parameters", model.parameterCount()}, {"device", device}, {"threads", threads}, {"batch", batchSize},
            {"candidates_per_second_batched", batched}, {"candidates_per_second_single", oneByOne},
            {"libtorch", compat::versionText()}};
  if (!jsonOut.empty()) writeText(jsonOut, support::writeJson(j, 1) + "\n");
  std::cout << kProgram << " bench: " << rankModelKindName(model.config().kind) << " on " << device << " (" << threads
            << " threads): " << std::fixed << std::setprecision(0) << batched << " candidates/s in batches of "
            << batchSize << ", " << oneByOne << " candidates/s one at a time\n";
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
