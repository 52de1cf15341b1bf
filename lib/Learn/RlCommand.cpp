// cudaperf-train rl and cudaperf-train eval-policy (docs/training.md): the loop around Rl.h's halves —
// config, model and LoRA, the environment, held-out evaluation before/after (and every N steps),
// JSON Lines logs, checkpoints with exact resume, SVG curves.
#include "cudaperf/Learn/Rl.h"

#include "cudaperf/Learn/Manifest.h"
#include "cudaperf/Learn/RankingScorer.h"
#include "cudaperf/Learn/RlTaskDraw.h"
#include "cudaperf/Learn/Progress.h"
#include "cudaperf/Learn/SvgPlot.h"
#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>

namespace cudaperf::learn {

namespace fs = std::filesystem;
using support::Json;
using Clock = std::chrono::steady_clock;

namespace {

const char *kProgram = "cudaperf-train";

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct CommonArgs {
  RlConfig config;
  DataParallelArgs dp;
  std::string out;
  bool resume = false, printConfig = false;
  int64_t threads = 1, stopAfter = 0;
};

// --config FILE, then every --set KEY=VALUE in order.
void declareCommon(support::ArgParser &p, CommonArgs &a, std::string &configPath, std::vector<std::string> &sets) {
  p.option("--config", "FILE", "RL config (JSON; docs/training.md lists every key)", configPath);
  p.option("--set", "KEY=VALUE", "override one config key (repeatable; VALUE as JSON, else a string)",
           [&sets](const std::string &v) { sets.push_back(v); });
  p.option("--out", "DIR", "output folder", a.out);
  p.option("--threads", "N", "LibTorch CPU threads (default 1)",
           [&a](const std::string &v) { a.threads = support::parseInteger(v, 1, 1024); });
  p.flag("--print-config", "print the config in effect (every key) and exit", a.printConfig);
  declareDataParallelOptions(p, a.dp);
}

void finishConfig(CommonArgs &a, const std::string &configPath, const std::vector<std::string> &sets) {
  if (!configPath.empty()) a.config = loadRlConfig(configPath);
  for (const std::string &s : sets) applyRlConfigOverride(a.config, s);
  validateRlConfig(a.config);
}

EnvironmentOptions environmentOptions(const RlConfig &c, const std::string &workDir, const torch::Device &device,
                                      const DataParallel &dp) {
  EnvironmentOptions e;
  e.rewardConfigPath = c.rewardConfig;
  e.rewardMode = c.rewardMode;
  e.gamma = c.gamma;
  e.staticOnly = c.staticOnly;
  e.evaluator = c.evaluator;
  e.queueUrl = c.queueUrl;
  e.evalPath = c.evalPath;
  e.analyzerPath = c.analyzerPath;
  e.evalArgs = c.evalArgs;
  // Data parallel on GPUs: each rank's evaluator measures on its own GPU unless eval_args say otherwise.
  bool devicesGiven = std::any_of(e.evalArgs.begin(), e.evalArgs.end(),
                                  [](const std::string &a) { return a.rfind("--devices", 0) == 0; });
  if (dp.worldSize() > 1 && device.is_cuda() && !devicesGiven) {
    e.evalArgs.push_back("--devices");
    e.evalArgs.push_back(std::to_string(device.index()));
  }
  e.jobs = int(c.rewardJobs);
  e.evalTimeout = c.evalTimeout;
  e.workDir = workDir;
  // The learned term: the ranking model in-process on the policy's device (it needs the analysis).
  if (c.rankingCheckpoint != "none" && c.analyzerPath != "none") {
    reward::AnalyzerOptions analyzer;
    analyzer.analyzerPath = c.analyzerPath;
    e.ranker = std::make_shared<ModelCandidateRanker>(
        c.rankingCheckpoint == "default" ? defaultRankCheckpoint() : c.rankingCheckpoint, device, analyzer);
  }
  return e;
}

// The tasks whose first prompt leaves room for an answer within the model's positions.
std::vector<RolloutTask> loadTasks(const std::vector<const ManifestTask *> &chosen, const Tokenizer &tokenizer,
                                   int64_t promptBudget, std::vector<std::string> &skipped) {
  std::vector<RolloutTask> tasks;
  for (const ManifestTask *m : chosen) {
    try {
      RolloutTask t{m->name, m->family, loadPolicyTask(m->dir), m->kind};
      size_t n = tokenizer.encode(renderPolicyPrompt(policyMessages(t.task)), false).size();
      if (int64_t(n) > promptBudget) {
        skipped.push_back(m->name + ": its prompt has " + std::to_string(n) + " tokens, over the budget of " +
                          std::to_string(promptBudget));
        continue;
      }
      tasks.push_back(std::move(t));
    } catch (const std::exception &e) {
      skipped.push_back(m->name + ": " + e.what());
    }
  }
  return tasks;
}

// Everything a run needs, built once from the config.
struct Session {
  RlConfig config;
  std::optional<Tokenizer> tokenizer;
  CausalLm policy{nullptr}, reference{nullptr};
  std::unique_ptr<RlEnvironment> environment;
  std::vector<RolloutTask> trainTasks;
  std::vector<std::pair<std::string, std::vector<RolloutTask>>> evalSets; // name, tasks
  GenerationOptions generation;
  int64_t promptBudget = 0;
  LoraOptions lora;
};

// `device`: the config's, or this rank's GPU (openDataParallel); ranks other than 0 print less and
// keep their candidates in OUT/work-rank<R>.
Session openSession(const RlConfig &c, const std::string &out, bool training, const std::string &deviceName,
                    const DataParallel &dp) {
  Session s;
  s.config = c;
  torch::manual_seed(c.seed);
  s.tokenizer = Tokenizer::fromFile((fs::path(c.model) / "tokenizer.json").string());
  torch::Device device = parseDevice(deviceName);
  s.policy = loadPretrained(c.model, LoadOptions{device, parseTorchDtype(c.dtype), false});
  if (training && c.loraRank > 0) {
    s.lora.rank = c.loraRank;
    s.lora.alpha = c.loraAlpha > 0 ? c.loraAlpha : double(2 * c.loraRank);
    s.lora.dropout = c.loraDropout;
    s.lora.targetModules = splitList(c.loraTargets);
    s.policy->attachLora(s.lora);
  }
  if (training && c.klCoef > 0 && c.loraRank == 0) { // full fine-tuning: the initial weights, frozen
    s.reference = loadPretrained(c.model, LoadOptions{device, parseTorchDtype(c.dtype), true});
    s.reference->eval();
    for (auto &p : s.reference->parameters()) p.set_requires_grad(false);
  }
  const ModelConfig &mc = s.policy->config;
  if (c.maxNewTokens >= mc.maxPositions)
    throw LearnError("max_new_tokens " + std::to_string(c.maxNewTokens) + " leaves no room for a prompt in the model's " +
                     std::to_string(mc.maxPositions) + " positions");
  s.promptBudget = std::min(c.contextTokens, mc.maxPositions - c.maxNewTokens);
  s.generation.maxNewTokens = c.maxNewTokens;
  s.generation.sampling.temperature = c.temperature;
  s.generation.sampling.topP = c.topP;
  s.generation.staticCache = c.decode == "static";
  s.generation.cudaGraph = c.decode == "graph";
  if (s.generation.cudaGraph && !s.policy->options.device().is_cuda())
    throw LearnError("decode graph: CUDA graphs need device cuda (decode static is the same step without them)");
  s.generation.stopTokenIds = mc.eosTokenIds;
  if (mc.padTokenId) s.generation.padId = *mc.padTokenId;

  std::vector<ManifestTask> manifest = readManifest(c.dataset);
  std::set<std::string> kinds;
  for (const std::string &k : splitList(c.kinds)) kinds.insert(k);
  std::set<std::string> trainFamilies = familiesOf(manifest, c.trainSplit);
  std::vector<std::string> skipped;
  if (training) {
    std::vector<const ManifestTask *> train;
    for (const ManifestTask &t : manifest)
      if (t.split == c.trainSplit && kinds.count(t.kind)) train.push_back(&t);
    s.trainTasks = loadTasks(train, *s.tokenizer, s.promptBudget, skipped);
    if (s.trainTasks.empty()) throw LearnError(c.dataset + ": no usable task of split " + c.trainSplit + " and kinds " + c.kinds);
  }
  auto evalSet = [&](const std::string &name, FamilyFilter filter, int64_t count) {
    if (count <= 0) return;
    std::vector<RolloutTask> tasks =
        loadTasks(selectRoundRobin(manifest, c.evalSplit, kinds, filter, trainFamilies, size_t(count)), *s.tokenizer,
                  s.promptBudget, skipped);
    if (!tasks.empty()) s.evalSets.push_back({name, std::move(tasks)});
  };
  evalSet("train_families", FamilyFilter::Within, c.evalTasks);
  evalSet("held_out_families", FamilyFilter::Outside, c.evalHeldOutFamilyTasks);
  std::string work = dp.isRoot() ? "work" : "work-rank" + std::to_string(dp.rank());
  s.environment = std::make_unique<RlEnvironment>(environmentOptions(c, (fs::path(out) / work).string(), device, dp));
  if (!dp.isRoot()) return s;
  for (size_t i = 0; i < skipped.size() && i < 5; ++i) std::cerr << kProgram << ": skipped " << skipped[i] << "\n";
  if (skipped.size() > 5) std::cerr << kProgram << ": skipped " << skipped.size() - 5 << " more tasks\n";
  if (dp.worldSize() > 1) std::cerr << kProgram << ": data parallel: " << dp.describe() << "\n";
  std::cerr << kProgram << ": " << mc.architecture() << " from " << c.model << (training && c.loraRank > 0 ? ", LoRA rank " + std::to_string(c.loraRank) : "")
            << "; " << s.trainTasks.size() << " training tasks; evaluation sets:";
  for (auto &[name, tasks] : s.evalSets) std::cerr << " " << name << " (" << tasks.size() << ")";
  std::cerr << "\n" << kProgram << ": environment: " << s.environment->describe() << "\n";
  return s;
}

// One JSON line per candidate: where it came from, what it earned, its source and reward document.
Json candidateLine(const std::string &phase, int64_t step, const std::vector<RolloutTask> &tasks, const TurnRecord &r,
                   const Tokenizer &tokenizer) {
  const CandidateOutcome &o = r.outcome;
  auto opt = [](const std::optional<double> &v) { return v ? Json(*v) : Json(nullptr); };
  Json j{{"schema", "cudaperf-rl-candidate/1"},
         {"phase", phase},
         {"step", step},
         {"task", tasks[r.group].name},
         {"family", tasks[r.group].family},
         {"group", r.group},
         {"trajectory", r.trajectory},
         {"turn", r.turn + 1},
         {"policy_version", r.policyVersion},
         {"prompt_tokens", r.prompt.size()},
         {"completion_tokens", r.completion.size()},
         {"finish_reason", r.finishReason},
         {"turns_shown", r.turnsShown},
         {"code_omitted", r.codeOmitted},
         {"source_sha256", o.sha256},
         {"cached", o.cached},
         {"outcome", o.outcome},
         {"gate", o.gate.empty() ? Json(nullptr) : Json(o.gate)},
         {"correct", o.correct},
         {"speedup", opt(o.speedup)},
         {"own_reward", opt(o.reward)},
         {"reward", opt(r.scored.reward)},
         {"rule", r.scored.rule},
         {"return", opt(r.scored.discountedReturn)},
         {"advantage", opt(r.advantage)},
         {"evaluation_seconds", o.seconds}};
  j["kind"] = tasks[r.group].kind;
  if (o.ranking) {
    Json top = Json::array();
    for (const auto &[feature, contribution] : o.ranking->topFeatures)
      top.push_back({{"feature", feature}, {"contribution", contribution}});
    j["ranking"] = {{"score", o.ranking->score}, {"configurations", o.ranking->configurations},
                    {"model", o.ranking->model}, {"top_features", top}};
  }
  if (!o.evaluatorError.empty()) j["evaluator_error"] = o.evaluatorError;
  if (o.evaluatorStages.is_object()) j["evaluator_stages"] = o.evaluatorStages;
  j["source"] = r.source ? Json(*r.source) : Json(nullptr);
  if (!r.source) j["completion"] = tokenizer.decode(r.completion, true).substr(0, 2000);
  j["reward_document"] = o.document ? o.document->toJson() : Json(nullptr);
  return j;
}

void appendLines(const fs::path &path, const std::vector<Json> &lines) {
  std::ofstream f(path, std::ios::app);
  for (const Json &j : lines) f << support::writeJson(j) << "\n";
  if (!f) throw LearnError(path.string() + ": cannot append");
}

// Drops the lines of steps after `lastStep` (a resumed run writes them again).
void truncateLog(const fs::path &path, int64_t lastStep) {
  if (!fs::exists(path)) return;
  std::ifstream in(path);
  std::vector<std::string> kept;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    try {
      Json j = support::parseJson(line);
      if (j.value("step", int64_t(0)) <= lastStep) kept.push_back(line);
    } catch (const std::exception &) {
      // a line cut by a killed run
    }
  }
  in.close();
  std::ofstream out(path, std::ios::trunc);
  for (const std::string &l : kept) out << l << "\n";
}

std::vector<Json> readLines(const fs::path &path) {
  std::vector<Json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) try {
        out.push_back(support::parseJson(line));
      } catch (const std::exception &) {
      }
  return out;
}

// Every rank's candidate lines (rank order: the groups' order) on every rank, and the records made
// from them; one process goes through the same conversion, so its statistics are computed alike.
std::vector<Json> gatherLines(DataParallel &dp, const std::vector<Json> &mine, std::vector<TurnRecord> &records) {
  std::string text;
  for (const Json &j : mine) text += support::writeJson(j) + "\n";
  std::vector<Json> all;
  for (const std::string &part : dp.allGather(text)) {
    std::istringstream in(part);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) all.push_back(support::parseJson(line, "a rank's candidate line"));
  }
  records.clear();
  for (const Json &j : all) records.push_back(recordFromCandidateLine(j));
  return all;
}

// Every candidate of one kind internal_error (RlEnvironment.h, unrewardableKind): the evaluator cannot reward
// that kind, so training on it or reporting its rates would mislead; LearnError naming `where`. Records index
// `tasks` by group; every rank decides on the same sums.
// submit_as_finished on CUDA only: on the CPU, generate() runs in OpenBLAS while the reward workers fork
// their nvcc and analyzer processes, and OpenBLAS's fork handler deadlocks against it (seen 2026-12-07:
// eval-policy on the CPU hung in blas_thread_shutdown_ under __libc_fork, learn.sft-checkpoint timed out).
bool submitAsFinishedOn(const RlConfig &c) { return c.submitAsFinished && c.device.rfind("cuda", 0) == 0; }

void stopOnUnrewardableKind(const std::vector<TurnRecord> &records, const std::vector<RolloutTask> &tasks,
                            const std::vector<std::string> &kinds, DataParallel &dp, const std::string &where) {
  std::map<std::string, KindOutcomes> byKind;
  for (const TurnRecord &r : records) countKindOutcome(byKind, tasks[r.group].kind, r.outcome);
  if (dp.worldSize() > 1) {
    std::vector<double> counts;
    for (const std::string &k : kinds) counts.insert(counts.end(), {double(byKind[k].candidates), double(byKind[k].internalErrors)});
    counts = dp.sum(counts);
    for (size_t i = 0; i < kinds.size(); ++i) {
      byKind[kinds[i]].candidates = int64_t(counts[2 * i]);
      byKind[kinds[i]].internalErrors = int64_t(counts[2 * i + 1]);
    }
  }
  if (std::string why = unrewardableKind(byKind); !why.empty()) throw LearnError(where + ": " + why);
}

// The held-out evaluation: G = eval_samples trajectories per task, T turns, greedy unless
// eval_temperature; the same seeds every time (row streams mix(seed, task, sample, turn) as in a
// rollout, so G = 1 draws what it always drew), so before/after differ only by the policy. Data
// parallel: the tasks of a set are cut among the ranks; rank 0 writes the lines.
Json evaluate(Session &s, const std::string &label, int64_t step, const fs::path &candidatesLog, DataParallel &dp) {
  Json result{{"schema", "cudaperf-rl-eval/1"}, {"label", label}, {"step", step}, {"sets", Json::object()}};
  auto start = Clock::now();
  for (auto &[name, tasks] : s.evalSets) {
    RolloutOptions o;
    o.groupSize = s.config.evalSamples;
    o.turns = s.config.turns;
    o.generation = s.generation;
    o.generation.sampling.greedy = s.config.evalTemperature == 0;
    if (s.config.evalTemperature > 0) o.generation.sampling.temperature = s.config.evalTemperature;
    o.contextTokens = s.promptBudget;
    o.generationBatch = s.config.generationBatch;
    o.submitAsFinished = submitAsFinishedOn(s.config);
    o.seed = mixSeed(s.config.seed, 0xE7A1);
    o.policyVersion = step; // the weights after `step` updates
    auto [begin, end] = shardRange(tasks.size(), dp.rank(), dp.worldSize());
    o.firstGroup = begin;
    std::vector<RolloutTask> mine(tasks.begin() + long(begin), tasks.begin() + long(end));
    std::vector<TurnRecord> records = runEpisodes(*s.policy, *s.tokenizer, mine, *s.environment, o);
    std::vector<Json> lines;
    for (const TurnRecord &r : records) lines.push_back(candidateLine("eval:" + label + ":" + name, step, tasks, r, *s.tokenizer));
    lines = gatherLines(dp, lines, records);
    if (dp.isRoot()) appendLines(candidatesLog, lines);
    stopOnUnrewardableKind(records, tasks, splitList(s.config.kinds), dp, "evaluation " + label + " (" + name + ")");
    result["sets"][name] = evaluationSummary(records, tasks.size(), s.config.turns, o.groupSize);
    // Per kind (C->CUDA, PyTorch->CUDA): the same summary over that kind's tasks. Records come in
    // runEpisodes' order (ranks in task order), task i's G x T at i * G * T.
    std::map<std::string, std::pair<std::vector<TurnRecord>, size_t>> byKind;
    size_t perTask = size_t(o.groupSize * o.turns);
    for (size_t i = 0; i < tasks.size() && (i + 1) * perTask <= records.size(); ++i) {
      auto &[kindRecords, count] = byKind[tasks[i].kind];
      kindRecords.insert(kindRecords.end(), records.begin() + long(i * perTask), records.begin() + long((i + 1) * perTask));
      ++count;
    }
    Json perKind = Json::object();
    for (const auto &[kind, part] : byKind)
      perKind[kind] = evaluationSummary(part.first, part.second, s.config.turns, o.groupSize);
    result["sets"][name]["by_kind"] = perKind;
  }
  result["seconds"] = since(start);
  return result;
}

std::string percent(const Json &v) {
  if (!v.is_number()) return "n/a";
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100 * v.get<double>() << "%";
  return s.str();
}

std::string number(const Json &v, int digits = 3) {
  if (!v.is_number()) return "n/a";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v.get<double>();
  return s.str();
}

void printEvaluation(const Json &e) {
  for (auto it = e["sets"].begin(); it != e["sets"].end(); ++it) {
    const Json &v = it.value();
    std::cerr << kProgram << ": eval " << e["label"].get<std::string>() << " " << it.key() << " (" << v["tasks"] << " tasks x "
              << v.value("samples_per_task", int64_t(1)) << " samples): turn 1 correct "
              << percent(v["turn1"]["correct"]) << ", fast_1 " << percent(v["turn1"]["fast_1"]) << ", mean speedup "
              << number(v["turn1"]["mean_speedup_correct"]) << "; best of " << v["turns"] << " correct "
              << percent(v["best_of_turns"]["correct"]) << ", fast_1 " << percent(v["best_of_turns"]["fast_1"])
              << ", mean speedup " << number(v["best_of_turns"]["mean_speedup_correct"]) << "\n";
    if (v.contains("by_kind"))
      for (auto k = v["by_kind"].begin(); k != v["by_kind"].end(); ++k)
        std::cerr << kProgram << ":   " << k.key() << " (" << k.value()["tasks"] << " tasks): turn 1 correct "
                  << percent(k.value()["turn1"]["correct"]) << ", fast_1 " << percent(k.value()["turn1"]["fast_1"])
                  << ", mean speedup " << number(k.value()["turn1"]["mean_speedup_correct"]) << "; best of turns correct "
                  << percent(k.value()["best_of_turns"]["correct"]) << ", mean speedup "
                  << number(k.value()["best_of_turns"]["mean_speedup_correct"]) << "\n";
  }
}

// Per-step statistics of a rollout batch.
Json stepStatistics(const std::vector<TurnRecord> &records, int64_t turns) {
  std::map<std::string, int64_t> outcomes;
  std::map<std::string, std::pair<double, int64_t>> terms;
  std::vector<std::pair<double, int64_t>> byTurn(static_cast<size_t>(turns)), correctByTurn(static_cast<size_t>(turns));
  std::vector<std::optional<int64_t>> versionByTurn(static_cast<size_t>(turns)); // the oldest weights a turn came from
  double rewardSum = 0, returnSum = 0, speedupSum = 0;
  int64_t rewarded = 0, returned = 0, correct = 0, speedups = 0, cached = 0, failures = 0, omitted = 0;
  std::map<std::pair<size_t, size_t>, bool> trajectoryCorrect;
  for (const TurnRecord &r : records) {
    const CandidateOutcome &o = r.outcome;
    ++outcomes[o.outcome];
    cached += o.cached;
    failures += !o.evaluatorError.empty();
    omitted += r.codeOmitted > 0;
    if (r.scored.reward) {
      rewardSum += *r.scored.reward;
      ++rewarded;
      byTurn[r.turn].first += *r.scored.reward;
      ++byTurn[r.turn].second;
    }
    if (r.scored.discountedReturn) {
      returnSum += *r.scored.discountedReturn;
      ++returned;
    }
    correct += o.correct;
    std::optional<int64_t> &version = versionByTurn[r.turn];
    version = version ? std::min(*version, r.policyVersion) : r.policyVersion;
    correctByTurn[r.turn].first += o.correct;
    ++correctByTurn[r.turn].second;
    trajectoryCorrect[{r.group, r.trajectory}] |= o.correct;
    if (o.speedup) {
      speedupSum += *o.speedup;
      ++speedups;
    }
    if (o.document)
      for (const schema::RewardTerm &term : o.document->terms) {
        auto &acc = terms[term.name];
        acc.first += term.contribution;
        ++acc.second;
      }
  }
  auto ratio = [](double a, int64_t n) { return n ? Json(a / double(n)) : Json(nullptr); };
  Json rewardByTurn = Json::array(), correctTurn = Json::array(), termMeans = Json::object(), outcomeCounts = Json::object();
  for (auto &[sum, n] : byTurn) rewardByTurn.push_back(ratio(sum, n));
  for (auto &[sum, n] : correctByTurn) correctTurn.push_back(ratio(sum, n));
  Json versions = Json::array();
  for (const std::optional<int64_t> &v : versionByTurn) versions.push_back(v ? Json(*v) : Json(nullptr));
  for (auto &[name, acc] : terms) termMeans[name] = acc.first / double(records.size());
  for (auto &[name, n] : outcomes) outcomeCounts[name] = n;
  int64_t anyCorrect = 0;
  for (auto &[key, ok] : trajectoryCorrect) anyCorrect += ok;
  return Json{{"candidates", records.size()},
              {"policy_version_by_turn", versions},
              {"reward_mean", ratio(rewardSum, rewarded)},
              {"reward_by_turn", rewardByTurn},
              {"return_mean", ratio(returnSum, returned)},
              {"reward_terms", termMeans},
              {"outcomes", outcomeCounts},
              {"correct_rate", ratio(double(correct), int64_t(records.size()))},
              {"correct_by_turn", correctTurn},
              {"best_of_turns_correct", ratio(double(anyCorrect), int64_t(trajectoryCorrect.size()))},
              {"speedup_mean", ratio(speedupSum, speedups)},
              {"cached", cached},
              {"evaluator_failures", failures},
              {"prompts_with_code_omitted", omitted}};
}

void writePlots(const fs::path &out, const std::vector<Json> &log) {
  auto series = [&](const std::string &name, const std::function<Json(const Json &)> &pick) {
    PlotSeries s{name, {}};
    for (const Json &j : log) {
      Json v = pick(j);
      if (v.is_number()) s.points.push_back({double(j.value("step", int64_t(0))), v.get<double>()});
    }
    return s;
  };
  auto turnValue = [](const std::string &key, bool last) {
    return [key, last](const Json &j) {
      const Json *a = support::member(j, key);
      if (!a || !a->is_array() || a->empty()) return Json(nullptr);
      return last ? a->back() : a->front();
    };
  };
  writeSvgLinePlot((out / "reward.svg").string(),
                   {series("mean reward", [](const Json &j) { return j.value("reward_mean", Json(nullptr)); }),
                    series("turn 1", turnValue("reward_by_turn", false)), series("last turn", turnValue("reward_by_turn", true))},
                   {"RL: reward per step (training rollouts)", "step", "reward"});
  writeSvgLinePlot((out / "correctness.svg").string(),
                   {series("correct (all turns)", [](const Json &j) { return j.value("correct_rate", Json(nullptr)); }),
                    series("turn 1", turnValue("correct_by_turn", false)),
                    series("best of turns", [](const Json &j) { return j.value("best_of_turns_correct", Json(nullptr)); })},
                   {"RL: correct candidates per step", "step", "fraction"});
  writeSvgLinePlot((out / "speedup.svg").string(),
                   {series("mean speedup of correct candidates", [](const Json &j) { return j.value("speedup_mean", Json(nullptr)); })},
                   {"RL: speedup per step", "step", "speedup"});
}

// task_selection uncertain (issue 34, item 4): before RL, selection_samples turn-1 samples of the
// starting policy per measured task, rewarded by the environment; the steps then draw from the tasks
// whose samples differ (RlTaskDraw.h). Written to OUT/task-selection.json, which a resumed run reads
// back instead of measuring again. Returns indices into s.trainTasks.
std::vector<size_t> selectTasks(Session &s, const fs::path &out, bool resume, DataParallel &dp) {
  const RlConfig &c = s.config;
  std::vector<size_t> all(s.trainTasks.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (c.taskSelection != "uncertain") return all;
  fs::path file = out / "task-selection.json";
  std::map<std::string, size_t> byName;
  for (size_t i = 0; i < s.trainTasks.size(); ++i) byName[s.trainTasks[i].name] = i;
  if (resume && fs::exists(file)) {
    Json doc = support::readJsonFile(file.string());
    std::vector<size_t> chosen;
    const Json *names = support::member(doc, "chosen");
    if (!names || !names->is_array()) throw LearnError(file.string() + ": no \"chosen\" list");
    for (const Json &n : *names) {
      auto it = n.is_string() ? byName.find(n.get<std::string>()) : byName.end();
      if (it == byName.end()) throw LearnError(file.string() + ": chosen task " + support::jsonSnippet(n) + " is not a training task");
      chosen.push_back(it->second);
    }
    if (chosen.empty()) throw LearnError(file.string() + ": no chosen task");
    return chosen;
  }
  auto start = Clock::now();
  std::vector<size_t> measured = all;
  if (c.selectionTasks > 0 && size_t(c.selectionTasks) < all.size()) {
    std::vector<std::string> taskKinds;
    for (const RolloutTask &t : s.trainTasks) taskKinds.push_back(t.kind);
    std::mt19937_64 pick(mixSeed(c.seed, 0x5E1EC7));
    measured = drawStepTasks(taskKinds, splitList(c.kinds), c.selectionTasks, pick);
  }
  RolloutOptions ro;
  ro.groupSize = c.selectionSamples;
  ro.turns = 1;
  ro.generation = s.generation;
  ro.contextTokens = s.promptBudget;
  ro.generationBatch = c.generationBatch;
  ro.submitAsFinished = submitAsFinishedOn(c);
  ro.seed = mixSeed(c.seed, 0x5E1EC8);
  auto [begin, end] = shardRange(measured.size(), dp.rank(), dp.worldSize());
  ro.firstGroup = begin;
  std::vector<RolloutTask> mine;
  for (size_t k = begin; k < end; ++k) mine.push_back(s.trainTasks[measured[k]]);
  std::vector<TurnRecord> records = runEpisodes(*s.policy, *s.tokenizer, mine, *s.environment, ro);
  std::string text;
  size_t G = size_t(c.selectionSamples);
  for (size_t k = 0; k < mine.size(); ++k) {
    TaskSamples t;
    for (size_t g = 0; g < G; ++g) {
      const CandidateOutcome &o = records[k * G + g].outcome;
      ++t.samples;
      t.correct += o.correct;
      if (!o.reward) continue;
      t.rewardMin = t.anyReward ? std::min(t.rewardMin, *o.reward) : *o.reward;
      t.rewardMax = t.anyReward ? std::max(t.rewardMax, *o.reward) : *o.reward;
      t.anyReward = true;
    }
    Json line{{"task", mine[k].name}, {"kind", mine[k].kind}, {"samples", t.samples}, {"correct", t.correct},
              {"share_correct", double(t.correct) / double(std::max<int64_t>(1, t.samples))},
              {"reward_min", t.anyReward ? Json(t.rewardMin) : Json(nullptr)},
              {"reward_max", t.anyReward ? Json(t.rewardMax) : Json(nullptr)}, {"chosen", samplesDiffer(t)}};
    text += support::writeJson(line) + "\n";
  }
  Json rows = Json::array();
  std::vector<size_t> chosen;
  for (const std::string &part : dp.allGather(text)) {
    std::istringstream in(part);
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      Json j = support::parseJson(line, "a rank's task selection");
      if (j.value("chosen", false)) chosen.push_back(byName.at(j.value("task", std::string())));
      rows.push_back(std::move(j));
    }
  }
  bool fallback = chosen.empty();
  if (fallback) chosen = all; // nothing to prefer: every task, as with task_selection all
  if (dp.isRoot()) {
    Json names = Json::array();
    for (size_t i : chosen) names.push_back(s.trainTasks[i].name);
    Json doc{{"schema", "cudaperf-rl-task-selection/1"}, {"samples", c.selectionSamples}, {"measured", rows.size()},
             {"chosen_count", chosen.size()}, {"fallback_all", fallback}, {"seconds", since(start)},
             {"tasks", rows}, {"chosen", names}};
    std::ofstream(file) << support::writeJson(doc, 1) << "\n";
    std::cerr << kProgram << ": task selection: " << (fallback ? rows.size() : chosen.size()) << " of " << rows.size()
              << " measured tasks " << (fallback ? "alike (no task's samples differ): drawing from all" : "have samples that differ")
              << " (" << number(Json(since(start)), 1) << " s; " << file.string() << ")\n";
  }
  return chosen;
}

// The run's means of the step lines' seconds per phase and counts (rl-report.json, "step_means").
Json stepMeans(const std::vector<Json> &log) {
  std::map<std::string, std::pair<double, size_t>> seconds, counts;
  auto add = [](const Json &j, const char *field, std::map<std::string, std::pair<double, size_t>> &sums) {
    if (const Json *m = support::member(j, field); m && m->is_object())
      for (auto it = m->begin(); it != m->end(); ++it)
        if (it.value().is_number()) {
          sums[it.key()].first += it.value().get<double>();
          sums[it.key()].second += 1;
        }
  };
  std::map<std::string, std::pair<double, size_t>> stages;
  for (const Json &j : log) {
    add(j, "seconds", seconds);
    add(j, "counts", counts);
    add(j, "evaluator_stages", stages); // each step's mean per candidate, averaged over steps
  }
  Json out{{"steps", log.size()}, {"seconds", Json::object()}, {"counts", Json::object()},
           {"evaluator_stages", Json::object()}};
  for (auto &[k, v] : seconds) out["seconds"][k] = v.first / double(v.second);
  for (auto &[k, v] : counts) out["counts"][k] = v.first / double(v.second);
  for (auto &[k, v] : stages) out["evaluator_stages"][k] = v.first / double(v.second);
  const Json &sec = out["seconds"], &cnt = out["counts"];
  if (sec.contains("generate") && cnt.contains("generated_tokens") && sec["generate"].get<double>() > 0)
    out["generated_tokens_per_second"] = cnt["generated_tokens"].get<double>() / sec["generate"].get<double>();
  return out;
}

} // namespace

int runRlCommand(const std::vector<std::string> &argv) {
  CommonArgs a;
  std::string configPath;
  std::vector<std::string> sets;
  support::ArgParser p(std::string(kProgram) + " rl", {"--config FILE [--set KEY=VALUE]... --out DIR [--resume]"},
                       "Multi-turn GRPO from the SFT checkpoint on the dataset's training split, rewarded by lib/Reward "
                       "(cudaperf-analyze + cudaperf-eval, or static-only). Writes OUT/rl-config.json, OUT/rl-log.jsonl "
                       "(a line per step), OUT/candidates.jsonl (every candidate with its reward), OUT/eval.jsonl, "
                       "OUT/state (exact resume), OUT/checkpoint, OUT/{reward,correctness,speedup}.svg, OUT/rl-report.json.");
  declareCommon(p, a, configPath, sets);
  p.flag("--resume", "continue from OUT/state when it exists (the logs are cut back to its step)", a.resume);
  p.option("--queue", "redis://HOST:PORT/QUEUE",
           "submit candidates to the Redis work queue instead of starting a local evaluator (evaluator=queue, "
           "queue_url=URL; workers: cudaperf-eval --worker URL)",
           [&sets](const std::string &v) {
             sets.push_back("evaluator=queue");
             sets.push_back("queue_url=" + v);
           });
  p.option("--stop-after-steps", "N", "stop (and save) after step N, the schedule unchanged (a run over several sessions)",
           [&a](const std::string &v) { a.stopAfter = support::parseInteger(v, 1, 1 << 30); });
  p.epilog("Exit codes: 0 ok, 1 failed input or run, 2 bad usage, 3 out of memory, 70 internal error.");
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  finishConfig(a, configPath, sets);
  if (a.printConfig) return std::cout << support::writeJson(rlConfigToJson(a.config), 2) << "\n", kExitOk;
  if (a.out.empty()) throw support::UsageError("--out is required");
  const RlConfig &c = a.config;
  torch::set_num_threads(int(a.threads));
  fs::path out(a.out);
  fs::create_directories(out);
  auto runStart = Clock::now();
  std::string device = c.device;
  std::unique_ptr<DataParallel> dp = openDataParallel(a.dp, device);
  bool root = dp->isRoot();
  dp->checkSame(support::writeJson(rlConfigToJson(c)), "config");
  Session s = openSession(c, a.out, true, device, *dp);

  TrainerOptions topts;
  topts.learningRate = c.learningRate;
  topts.weightDecay = c.weightDecay;
  topts.gradClip = c.gradClip;
  topts.schedule.kind = "constant";
  topts.schedule.warmupSteps = c.warmupSteps;
  topts.schedule.totalSteps = c.steps * c.miniBatches * c.ppoEpochs;
  s.policy->train();
  Trainer trainer(s.policy, topts);
  if (dp->worldSize() > 1)
    trainer.setGradientReducer([&dp](const std::vector<torch::Tensor> &params) { dp->reduceGradients(params); });
  int64_t step0 = 0;
  double elapsedBefore = 0;
  fs::path state = out / "state";
  if (a.resume && fs::exists(state / "trainer_state.json")) {
    Json extra = trainer.load(state.string());
    // The arms of the experiment run in chunks across device calls and sessions: a chunk resumed with other
    // settings (a forgotten --set, another decode) would silently be a different run under the same name.
    if (extra.contains("config")) {
      std::vector<std::string> changes = rlConfigResumeChanges(extra["config"], c);
      if (!changes.empty()) {
        std::string list;
        for (const auto &line : changes) list += "\n  " + line;
        throw LearnError("--resume: " + state.string() + " was trained with other settings; resume with the same "
                         "ones, or start a new --out:" + list);
      }
    }
    step0 = extra.value("rl_step", int64_t(0));
    elapsedBefore = extra.value("elapsed", 0.0);
    if (root) std::cerr << kProgram << ": resumed " << state.string() << " at RL step " << step0 << "\n";
  }
  if (root) { // after the resume check: a refused resume leaves the run's files as they were
    std::ofstream f(out / "rl-config.json");
    f << support::writeJson(rlConfigToJson(c), 2) << "\n";
  }
  {
    std::vector<torch::Tensor> weights;
    for (auto &[name, t] : trainer.trainable()) weights.push_back(t);
    dp->checkSame(tensorChecksum(weights), "set of trainable weights");
  }
  fs::path logPath = out / "rl-log.jsonl", candidatesPath = out / "candidates.jsonl", evalPath = out / "eval.jsonl";
  if (root && step0 == 0) {
    for (const fs::path &f : {logPath, candidatesPath, evalPath}) fs::remove(f);
  } else if (root) {
    for (const fs::path &f : {logPath, candidatesPath, evalPath}) truncateLog(f, step0);
  }
  std::vector<Json> evals = readLines(evalPath);
  auto saveState = [&](int64_t step) {
    if (!root) return; // the state is every rank's (the same weights and optimizer): rank 0 writes it
    fs::path tmp = out / "state.tmp";
    std::string why;
    if (!support::removeTree(tmp.string(), &why)) throw LearnError("cannot clear " + tmp.string() + ": " + why);
    trainer.save(tmp.string(), Json{{"rl_step", step}, {"elapsed", elapsedBefore + since(runStart)},
                                    {"config_sha256", support::sha256Hex(support::writeJson(rlConfigToJson(c)))},
                                    {"config", rlConfigToJson(c)}});
    if (!support::removeTree(state.string(), &why)) throw LearnError("cannot replace " + state.string() + ": " + why);
    fs::rename(tmp, state);
  };
  auto runEval = [&](const std::string &label, int64_t step) {
    if (s.evalSets.empty()) return;
    Json e = evaluate(s, label, step, candidatesPath, *dp);
    if (!root) return;
    printEvaluation(e);
    appendLines(evalPath, {e});
    evals.push_back(e);
  };
  if (step0 == 0) runEval("before", 0);
  std::vector<size_t> drawable = selectTasks(s, out, a.resume && step0 > 0, *dp);

  RlLossOptions loss;
  loss.clipLow = c.clipLow;
  loss.clipHigh = c.clipHigh;
  loss.klCoef = c.klCoef;
  loss.normalization = c.lossNormalization;
  loss.microBatchTokens = c.microBatchTokens;
  loss.logProbs.temperature = c.temperature;
  loss.logProbs.gradientCheckpointing = c.gradientCheckpointing;
  loss.padId = s.generation.padId;

  // The step's tasks: a function of (seed, step), so a resumed run draws the same ones.
  // With several kinds they take turns (RlTaskDraw.h): every step has C and PyTorch tasks alike.
  std::vector<std::string> taskKinds;
  for (size_t i : drawable) taskKinds.push_back(s.trainTasks[i].kind);
  auto tasksOf = [&](int64_t step) {
    std::mt19937_64 pick(mixSeed(c.seed, uint64_t(step)));
    std::vector<RolloutTask> tasks;
    for (size_t k : drawStepTasks(taskKinds, splitList(c.kinds), c.tasksPerStep, pick)) tasks.push_back(s.trainTasks[drawable[k]]);
    return tasks;
  };
  auto rolloutOptionsOf = [&](int64_t step, size_t taskCount) {
    RolloutOptions ro;
    ro.groupSize = c.groupSize;
    ro.turns = c.turns;
    ro.generation = s.generation;
    ro.contextTokens = s.promptBudget;
    ro.generationBatch = c.generationBatch;
    ro.submitAsFinished = submitAsFinishedOn(c);
    ro.seed = mixSeed(mixSeed(c.seed, uint64_t(step)), 1);
    ro.firstGroup = shardRange(taskCount, dp->rank(), dp->worldSize()).first;
    ro.policyVersion = step - 1; // one update per step: the weights that step `step` starts from
    return ro;
  };
  auto myShare = [&](const std::vector<RolloutTask> &tasks) {
    auto [groupBegin, groupEnd] = shardRange(tasks.size(), dp->rank(), dp->worldSize());
    return std::vector<RolloutTask>(tasks.begin() + long(groupBegin), tasks.begin() + long(groupEnd));
  };
  std::optional<RolloutAhead> ahead; // overlap_steps 1: the next step's first turn, generated in this step

  Progress progress(c.steps);
  if (c.maxSeconds > 0) progress.setTimeLimit(c.maxSeconds);
  auto showProgress = [&](int64_t done, const std::string &what) {
    if (root) progress.update(done, what);
  };
  auto loopStart = Clock::now(); // max_seconds is the training loop's: the evaluations come on top
  int64_t step = step0;
  std::string stopReason = "steps done";
  while (step < c.steps) {
    // Rank 0's clock decides for every rank, so all stop at the same step.
    if (c.maxSeconds > 0 && dp->fromRoot(since(loopStart)) >= c.maxSeconds) {
      stopReason = "max_seconds spent";
      break;
    }
    if (a.stopAfter > 0 && step >= a.stopAfter) {
      stopReason = "--stop-after-steps";
      break;
    }
    ++step;
    auto stepStart = Clock::now();
    std::vector<RolloutTask> tasks = tasksOf(step);
    RolloutOptions ro = rolloutOptionsOf(step, tasks.size());
    // Data parallel: each rank rolls out a contiguous share of the step's task groups (advantages are
    // relative within a group, so they need nothing from the other ranks).
    std::vector<RolloutTask> myTasks = myShare(tasks);
    RolloutStats rs;
    auto rolloutStart = Clock::now();
    // overlap_steps 1: while this step's last turn is evaluated, the next step's first turn is generated
    // with these (not yet updated) weights, its behaviour log-probs taken with them (docs/training.md,
    // "Overlapping rewards with generation"). Not past the run's last step.
    std::optional<RolloutAhead> nextAhead;
    std::function<void(RolloutStats &)> overlap;
    if (c.overlapSteps > 0 && step < c.steps && !(a.stopAfter > 0 && step >= a.stopAfter))
      overlap = [&](RolloutStats &current) {
        std::vector<RolloutTask> nextTasks = tasksOf(step + 1);
        showProgress(step - 1, "step " + std::to_string(step + 1) + ", turn 1: generating while rewards come");
        RolloutOptions next = rolloutOptionsOf(step + 1, nextTasks.size());
        next.policyVersion = step - 1; // these weights: this step's update has not been applied yet
        nextAhead = generateFirstTurn(*s.policy, *s.tokenizer, myShare(nextTasks), *s.environment, next, &loss, &current);
      };
    std::vector<TurnRecord> records = runEpisodes(*s.policy, *s.tokenizer, myTasks, *s.environment, ro, &rs,
                                                  [&](const std::string &what) { showProgress(step - 1, what); },
                                                  ahead ? &*ahead : nullptr, overlap);
    ahead = std::move(nextAhead);
    double rolloutSeconds = since(rolloutStart);
    std::vector<RlSample> samples = gatherSamples(*dp, samplesFromRecords(records, c.advantageScale));
    std::vector<Json> lines;
    for (const TurnRecord &r : records) lines.push_back(candidateLine("train", step, tasks, r, *s.tokenizer));
    lines = gatherLines(*dp, lines, records);
    if (dp->worldSize() > 1) { // tokens and counts add up; the slowest rank's seconds are the step's
      std::vector<double> sums = dp->sum({double(rs.generatedTokens), double(rs.promptTokens), double(rs.candidates),
                                          double(rs.uniqueCandidates), double(rs.reused), double(rs.evaluated),
                                          double(rs.ranked), double(rs.rankingCalls), rs.evaluateSeconds,
                                          double(rs.overlappedTokens), double(rs.rankingErrors)});
      std::vector<double> maxima = dp->max({rs.generationSeconds, rs.rewardWaitSeconds, rolloutSeconds, rs.promptSeconds,
                                            rs.extractSeconds, rs.rankSeconds, rs.scoreSeconds, rs.overlappedSeconds});
      rs.generatedTokens = int64_t(sums[0]), rs.promptTokens = int64_t(sums[1]), rs.candidates = int64_t(sums[2]);
      rs.uniqueCandidates = int64_t(sums[3]), rs.reused = int64_t(sums[4]), rs.evaluated = int64_t(sums[5]);
      rs.ranked = int64_t(sums[6]), rs.rankingCalls = int64_t(sums[7]), rs.evaluateSeconds = sums[8];
      rs.overlappedTokens = int64_t(sums[9]), rs.overlappedSeconds = maxima[7], rs.rankingErrors = int64_t(sums[10]);
      rs.generationSeconds = maxima[0], rs.rewardWaitSeconds = maxima[1], rolloutSeconds = maxima[2];
      rs.promptSeconds = maxima[3], rs.extractSeconds = maxima[4], rs.rankSeconds = maxima[5], rs.scoreSeconds = maxima[6];
    }
    // A kind the evaluator cannot reward stops the run before the update.
    stopOnUnrewardableKind(records, tasks, splitList(c.kinds), *dp, "step " + std::to_string(step));
    // A ranker that threw on every call of a step (a device mismatch, a broken checkpoint) would make the
    // unified+ranker arm the unified one without a word: stop before the update, naming the error.
    // (Every rank decides on the same sums.)
    if (rs.rankingCalls > 0 && rs.rankingErrors == rs.rankingCalls)
      throw LearnError("step " + std::to_string(step) + ": the ranking model failed on all " +
                       std::to_string(rs.rankingCalls) + " of its calls: " +
                       (rs.rankingError.empty() ? std::string("(on another rank)") : rs.rankingError));
    auto updateStart = Clock::now();
    RlUpdateStats us = rlUpdate(*s.policy, trainer, samples, loss, c.miniBatches, c.ppoEpochs,
                                mixSeed(mixSeed(c.seed, uint64_t(step)), 2), s.reference ? s.reference.get() : nullptr,
                                dp.get());
    double updateSeconds = since(updateStart);

    Json line = stepStatistics(records, c.turns);
    Json head{{"step", step},
              {"elapsed", elapsedBefore + since(runStart)},
              {"overlap_steps", c.overlapSteps},
              {"policy_version", step - 1},
              {"learning_rate", us.learningRate},
              {"loss", us.loss},
              {"policy_loss", us.policyLoss},
              {"kl", us.kl},
              {"clip_fraction", us.tokens ? double(us.clippedTokens) / double(us.tokens) : 0.0},
              {"ratio_min", us.ratioMin},
              {"ratio_max", us.ratioMax},
              {"grad_norm", us.gradNorm},
              {"optimizer_steps", us.optimizerSteps},
              {"skipped_steps", us.skippedSteps},
              {"samples", samples.size()},
              {"trained_tokens", us.tokens},
              {"generated_tokens", rs.generatedTokens},
              {"prompt_tokens", rs.promptTokens},
              {"tokens_per_second", rs.generationSeconds > 0 ? double(rs.generatedTokens) / rs.generationSeconds : 0.0}};
    for (auto it = line.begin(); it != line.end(); ++it) head[it.key()] = it.value();
    // Seconds per phase (docs/training.md, "RL step throughput"): the trainer thread's wall time, except
    // evaluate (analysis + evaluation summed over candidates, on the workers, overlapped with generation).
    // overlapped: the next step's first turn made while this step's last turn was evaluated (its prompt,
    // generate and extract seconds are in those phases too); 0 with overlap_steps 0.
    head["seconds"] = {{"rollout", rolloutSeconds}, {"prompt", rs.promptSeconds}, {"generate", rs.generationSeconds},
                       {"extract", rs.extractSeconds}, {"reward_wait", rs.rewardWaitSeconds},
                       {"overlapped", rs.overlappedSeconds},
                       {"evaluate", rs.evaluateSeconds}, {"rank", rs.rankSeconds}, {"score", rs.scoreSeconds},
                       {"update", updateSeconds}, {"step", since(stepStart)}};
    // Identical candidates (task + extracted code) are evaluated once: duplicates = candidates - unique.
    head["counts"] = {{"candidates", rs.candidates}, {"unique_candidates", rs.uniqueCandidates},
                      {"duplicates", rs.candidates - rs.uniqueCandidates}, {"reused", rs.reused},
                      {"evaluated", rs.evaluated}, {"ranked", rs.ranked}, {"ranking_calls", rs.rankingCalls},
                      {"ranking_errors", rs.rankingErrors},
                      {"generated_tokens", rs.generatedTokens}, {"prompt_tokens", rs.promptTokens},
                      {"overlapped_tokens", rs.overlappedTokens}};
    // Where the evaluator's time went, mean per evaluated candidate (reused ones cost nothing).
    head["evaluator_stages"] = meanEvaluatorStages(lines);
    {
      Json names = Json::array();
      for (const RolloutTask &t : tasks) names.push_back(t.name);
      head["tasks"] = names;
    }
    if (root) {
      appendLines(logPath, {head});
      appendLines(candidatesPath, lines);
    }
    showProgress(step, "reward " + number(head["reward_mean"]) + ", correct " + percent(head["correct_rate"]) +
                              ", loss " + number(head["loss"], 4));
    if (step % c.saveEvery == 0) saveState(step);
    if (c.evalEvery > 0 && step % c.evalEvery == 0 && step < c.steps) runEval("step " + std::to_string(step), step);
  }
  if (root) progress.finish();
  saveState(step);
  bool finished = step >= c.steps || stopReason == "max_seconds spent";
  if (finished) runEval("after", step);
  if (!root) return kExitOk; // rank 0 writes the checkpoint, curves and report
  SaveOptions save;
  save.maxShardBytes = size_t(15e6);
  savePretrained(*s.policy, (out / "checkpoint").string(), save);
  copyTokenizerFiles(c.model, (out / "checkpoint").string());
  if (c.loraRank > 0) saveLoraAdapter(*s.policy, (out / "adapter").string(), s.lora, c.model);
  std::vector<Json> log = readLines(logPath);
  writePlots(out, log);
  RlEnvironment::Counts counts = s.environment->counts();
  Json report{{"schema", "cudaperf-rl-report/1"},
              {"config", rlConfigToJson(c)},
              {"steps_done", step},
              {"stopped", stopReason},
              {"seconds", elapsedBefore + since(runStart)},
              {"candidates", {{"submitted", counts.submitted}, {"evaluated", counts.evaluated}, {"cached", counts.cached},
                              {"evaluator_failures", counts.evaluatorFailures}}},
              {"evaluations", evals},
              {"step_means", stepMeans(log)},
              {"data_parallel", {{"world_size", dp->worldSize()}, {"describe", dp->describe()}}}};
  std::ofstream(out / "rl-report.json") << support::writeJson(report, 1) << "\n";
  std::cerr << kProgram << ": " << step << " steps (" << stopReason << ") in " << number(Json(since(runStart)), 0)
            << " s; " << counts.submitted << " candidates, " << counts.cached << " cached, " << counts.evaluatorFailures
            << " evaluator failures; " << out.string() << "\n";
  {
    Json m = report["step_means"];
    std::ostringstream line;
    line << kProgram << ": per step (mean of " << m["steps"] << "):";
    for (auto it = m["seconds"].begin(); it != m["seconds"].end(); ++it) line << " " << it.key() << " " << number(it.value(), 2) << " s,";
    line << " " << number(m["counts"].value("generated_tokens", Json(0.0)), 0) << " tokens";
    if (m.contains("generated_tokens_per_second")) line << " at " << number(m["generated_tokens_per_second"], 0) << " tokens/s";
    std::cerr << line.str() << "\n";
  }
  return kExitOk;
}

int runEvalPolicyCommand(const std::vector<std::string> &argv) {
  CommonArgs a;
  std::string configPath, model;
  std::vector<std::string> sets;
  support::ArgParser p(std::string(kProgram) + " eval-policy", {"--model DIR --out DIR [--config FILE] [--set KEY=VALUE]..."},
                       "Held-out evaluation of a policy checkpoint (make eval-policy): eval_tasks tasks of the test split's "
                       "training families and eval_held_out_family_tasks of families never trained on, T turns each with "
                       "feedback, eval_samples per task, greedy unless eval_temperature; turn 1 and best-of-T correctness, fast_1, "
                       "mean speedup (per sample; scripts/eval-report.py adds bootstrap intervals over tasks). "
                       "Writes OUT/eval-policy.json and OUT/candidates.jsonl.");
  declareCommon(p, a, configPath, sets);
  p.option("--model", "DIR", "the checkpoint (overrides the config's model)", model);
  p.epilog("Exit codes: 0 ok, 1 failed input or run, 2 bad usage, 3 out of memory, 70 internal error.");
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  if (!model.empty()) sets.insert(sets.begin(), "model=" + model);
  finishConfig(a, configPath, sets);
  if (a.printConfig) return std::cout << support::writeJson(rlConfigToJson(a.config), 2) << "\n", kExitOk;
  if (a.out.empty()) throw support::UsageError("--out is required");
  torch::set_num_threads(int(a.threads));
  fs::path out(a.out);
  fs::create_directories(out);
  std::string device = a.config.device;
  std::unique_ptr<DataParallel> dp = openDataParallel(a.dp, device);
  Session s = openSession(a.config, a.out, false, device, *dp);
  if (s.evalSets.empty()) throw LearnError(a.config.dataset + ": no evaluation task (split " + a.config.evalSplit + ")");
  if (dp->isRoot()) fs::remove(out / "candidates.jsonl");
  Json e = evaluate(s, "policy", 0, out / "candidates.jsonl", *dp);
  if (!dp->isRoot()) return kExitOk;
  e["model"] = a.config.model;
  e["config"] = rlConfigToJson(a.config);
  std::ofstream(out / "eval-policy.json") << support::writeJson(e, 1) << "\n";
  printEvaluation(e);
  return kExitOk;
}

} // namespace cudaperf::learn
