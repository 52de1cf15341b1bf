// cudaperf-rank's shared pieces (RankTool.h).
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


std::vector<std::string> familiesOf(const std::vector<RankExample> &examples, const std::vector<RankGroup> &groups) {
  std::set<std::string> f;
  for (const RankGroup &g : groups) f.insert(examples[g.members.front()].family);
  return {f.begin(), f.end()};
}

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
// --- evaluation --------------------------------------------------------------------------------


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
} // namespace cudaperf::ranktool
