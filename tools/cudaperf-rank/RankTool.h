// cudaperf-rank's pieces shared by its subcommands (cudaperf-rank.cpp: prepare, train and main;
// RankEvaluate.cpp: eval, cv; RankScore.cpp: score, bench): option helpers, training a model from the
// command line's settings, and the evaluation's sets, baselines and output (JSON, Markdown).
#pragma once

#include "cudaperf/Learn/RankingData.h"
#include "cudaperf/Learn/RankingModel.h"
#include "cudaperf/Learn/RankingPrepare.h"
#include "cudaperf/Learn/Tokenizer.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace cudaperf::ranktool {

using learn::RankExample;
using learn::RankGroup;
using learn::RankMetrics;
using support::Json;
using Clock = std::chrono::steady_clock;

constexpr const char *kProgram = "cudaperf-rank";
constexpr const char *kEvalSchema = "cudaperf-rank-eval/1";
constexpr const char *kScoresSchema = "cudaperf-rank-scores/1";

double secondsSince(Clock::time_point t);
void progress(const std::string &line);
Json numberOrNull(double v);

std::function<void(const std::string &)> integerInto(int &target, int lo, int hi);
std::function<void(const std::string &)> numberInto(double &target, double lo, double hi);
std::function<void(const std::string &)> collectInto(std::vector<std::string> &target);

std::vector<RankExample> readAllExamples(const std::vector<std::string> &files);
void writeText(const std::string &path, const std::string &text);
learn::rank::PrepareOptions prepareOptions(const std::string &analyzer, const std::string &cache, int jobs);

// --- training (train and cv) ---
struct TrainArgs {
  std::vector<std::string> examples;
  std::string out, kind = "mlp", tokenizerFile, tokenizerCorpus, device = "cpu", plot;
  int epochs = 300, hidden = 32, threads = 1, validateEvery = 1, vocab = 2048, maxTokens = 512, corpusLimit = 4000;
  double lr = 0.01, weightDecay = 1e-4;
  uint64_t seed = 1;
  bool counters = false, staticScoreInput = false;
  std::vector<std::string> excludeFamilies;
};
void addTrainOptions(support::ArgParser &p, TrainArgs &a);
std::shared_ptr<const learn::Tokenizer> tokenizerFor(const TrainArgs &a);

struct Trained {
  learn::RankModel model;
  std::vector<learn::RankCurvePoint> curve;
  size_t pairs = 0;
  double seconds = 0;
};
std::vector<std::string> familiesOf(const std::vector<RankExample> &examples, const std::vector<RankGroup> &groups);
// Trains on the groups `inTraining` accepts (validation: `inValidation`); quiet unless logEvery.
Trained trainModel(const TrainArgs &a, const std::vector<RankExample> &examples,
                   const std::function<bool(const RankExample &)> &inTraining,
                   const std::function<bool(const RankExample &)> &inValidation,
                   std::shared_ptr<const learn::Tokenizer> tokenizer, int logEvery);
bool isTrainingSplit(const RankExample &e, const std::set<std::string> &excluded);

// --- evaluation (eval and cv) ---
struct EvalSet {
  std::string name, description;
  std::function<bool(const RankExample &)> keep;
};
std::vector<EvalSet> evaluationSets();

// A method: a name and a score per example (higher = faster).
struct Method {
  std::string name;
  std::vector<double> scores;
};
std::vector<Method> baselineMethods(const std::vector<RankExample> &examples);

Json metricsJson(const RankMetrics &m);
Json coverageJson(const std::vector<RankExample> &examples, const std::vector<RankGroup> &groups);
std::string percent(double v);
std::string fixed3(double v);
std::string markdownRow(const std::string &method, const RankMetrics &m);
extern const char *kMarkdownHeader;

// The subcommands of the other files.
int runEval(const std::vector<std::string> &argv);
int runCrossValidation(const std::vector<std::string> &argv);
int runScore(const std::vector<std::string> &argv);
int runBench(const std::vector<std::string> &argv);

} // namespace cudaperf::ranktool
