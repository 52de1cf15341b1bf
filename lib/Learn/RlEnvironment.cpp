#include "cudaperf/Learn/RlEnvironment.h"
#include "cudaperf/Schema/Outcome.h"

#include "cudaperf/Learn/Error.h"
#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Reward/ServiceEvaluator.h"
#include "cudaperf/Schema/EvalResult.h"
#ifdef CUDAPERF_HAVE_QUEUE
#include "cudaperf/Queue/RewardEvaluator.h"
#endif
#include "cudaperf/Support/Sha256.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <sstream>

namespace cudaperf::learn {

namespace fs = std::filesystem;
using support::Json;

namespace {

// An eval result of the evaluator's schema for what never reached it (no code block) or what it
// could not finish (it died on the candidate), so the reward's own gate and feedback apply.
Json syntheticResult(const std::string &taskDir, const std::string &sha, schema::Outcome outcome,
                     const std::string &detail, const std::string &compileLog, bool compileOnly) {
  return schema::EvalResult::synthetic(fs::path(taskDir).filename().string(), taskDir, "(policy answer)", sha, outcome,
                                       detail, compileLog, compileOnly)
      .toJson();
}

} // namespace

RlEnvironment::RlEnvironment(const EnvironmentOptions &options, std::unique_ptr<reward::Evaluator> evaluator)
    : options_(options) {
  try {
    config_ = options.rewardConfigPath.empty() ? reward::RewardConfig() : reward::loadRewardConfig(options.rewardConfigPath);
    config_.trajectory.gamma = options.gamma;
    if (!evaluator) evaluator = makeEnvironmentEvaluator(options);
    reward::AnalyzerOptions analyzer;
    analyzer.analyzerPath = options.analyzerPath;
    pipeline_ = std::make_unique<reward::RewardPipeline>(config_, std::move(evaluator), analyzer, options.workDir);
  } catch (const reward::RewardError &e) {
    throw LearnError(std::string("reward environment: ") + e.what());
  }
  if (options_.rewardMode != "unified" && options_.rewardMode != "outcome")
    throw LearnError("reward_mode: expected unified or outcome, got \"" + options_.rewardMode + "\"");
  {
    std::string what = options_.rewardConfigPath + "\n" + options_.rewardMode + "\n" + (options_.staticOnly ? "static" : "measured") +
                       "\n" + options_.evaluator + "\n" + std::to_string(options_.gamma) + "\n" +
                       (options_.ranker ? options_.ranker->describe() : std::string("no ranker"));
    for (const std::string &a : options_.evalArgs) what += "\n" + a;
    optionsDigest_ = support::sha256Hex(what).substr(0, 16);
  }
  for (int i = 0; i < std::max(1, options_.jobs); ++i) workers_.emplace_back([this] { workerLoop(); });
}

RlEnvironment::~RlEnvironment() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread &t : workers_) t.join();
}

void RlEnvironment::workerLoop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return; // stopping, and nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

std::string RlEnvironment::describe() const {
  return pipeline_->describe() + "; reward mode " + options_.rewardMode + "; " + std::to_string(workers_.size()) +
         " jobs; " + (options_.ranker ? options_.ranker->describe() + ", batched" : std::string("no ranking model"));
}

RlEnvironment::Counts RlEnvironment::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

std::shared_future<CandidateOutcome> RlEnvironment::submit(const std::string &taskDir,
                                                           const std::optional<std::string> &source) {
  std::string sha = source ? support::sha256Hex(*source) : std::string();
  std::string key = optionsDigest_ + "\n" + taskDir + "\n" + (source ? sha : std::string("no code block"));
  std::lock_guard<std::mutex> lock(mutex_);
  size_t sequence = counts_.submitted++;
  auto hit = cache_.find(key);
  if (hit != cache_.end()) {
    ++counts_.cached;
    // The same outcome, marked as reused (it cost nothing this time).
    std::shared_future<CandidateOutcome> earlier = hit->second;
    return std::async(std::launch::deferred, [earlier] {
             CandidateOutcome o = earlier.get();
             o.cached = true;
             o.seconds = 0;
             return o;
           }).share();
  }
  auto entry = std::make_shared<Entry>();
  entry->taskDir = taskDir;
  entry->source = source.value_or(std::string());
  entry->sha = sha;
  entry->sequence = sequence;
  ++inStage_;
  inStageSequences_.insert(sequence);
  queue_.push_back([this, entry, source] { stage(entry, source); });
  wake_.notify_one();
  // Deferred: the caller's get() waits for the worker, then ranks (in a batch) if it must.
  std::shared_future<CandidateOutcome> future =
      std::async(std::launch::deferred, [this, entry] { return await(entry); }).share();
  cache_[key] = future;
  return future;
}

void RlEnvironment::waitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  staged_.wait(lock, [&] { return inStage_ == 0; });
}

size_t RlEnvironment::submissions() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_.submitted;
}

void RlEnvironment::waitStaged(size_t mark) {
  // A cached (identical) submission has no entry of its own: the earlier one it shares has a lower index.
  std::unique_lock<std::mutex> lock(mutex_);
  staged_.wait(lock, [&] { return inStageSequences_.empty() || *inStageSequences_.begin() >= mark; });
}

void RlEnvironment::stage(const std::shared_ptr<Entry> &entry, const std::optional<std::string> &source) {
  std::optional<reward::CandidateResult> forRanking;
  CandidateOutcome o;
  try {
    o = evaluate(entry->taskDir, source, options_.ranker ? &forRanking : nullptr);
  } catch (const std::exception &e) { // evaluate() does not throw; a reward of nothing if it ever did
    o.taskDir = entry->taskDir;
    o.sha256 = entry->sha;
    o.extracted = source.has_value();
    o.outcome = "internal_error";
    o.evaluatorError = e.what();
    o.feedback = std::string("Outcome: internal_error (") + e.what() + ")";
    forRanking.reset();
  }
  // The ranker's per-task work (the baseline's analysis) here on the worker, not on the trainer's thread
  // in rank(); it is on the trainer's clock only if the trainer waits for this very candidate.
  if (forRanking) {
    try {
      options_.ranker->prepare(entry->taskDir);
    } catch (...) { // rank() meets the same failure and it is counted there
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  counts_.evaluateSeconds += o.seconds;
  entry->seconds = o.seconds;
  if (forRanking) {
    entry->result = std::move(forRanking);
    rankPending_.push_back(entry);
  }
  entry->outcome = std::move(o); // the verdict-less outcome; replaced once ranked
  entry->staged = true;
  --inStage_;
  inStageSequences_.erase(entry->sequence);
  staged_.notify_all();
}

CandidateOutcome RlEnvironment::await(const std::shared_ptr<Entry> &entry) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    staged_.wait(lock, [&] { return entry->staged; });
    if (!entry->result) return *entry->outcome; // final (nothing to rank, or ranked)
    if (entry->rankTaken) {
      staged_.wait(lock, [&] { return !entry->result; });
      continue;
    }
    // Rank every staged candidate waiting for it, this one among them, in one scorer call.
    std::vector<std::shared_ptr<Entry>> batch;
    batch.swap(rankPending_);
    for (const std::shared_ptr<Entry> &e : batch) e->rankTaken = true;
    lock.unlock();
    rankBatch(batch);
    lock.lock();
  }
}

void RlEnvironment::rankBatch(const std::vector<std::shared_ptr<Entry>> &batch) {
  auto start = std::chrono::steady_clock::now();
  std::vector<RankingCandidate> candidates;
  for (const std::shared_ptr<Entry> &e : batch)
    candidates.push_back({e->taskDir, "(policy answer)", e->source, &e->result->analysis->analysis()});
  std::vector<std::optional<RankingVerdict>> verdicts(batch.size());
  std::string error; // the learned term is then absent from the batch, as without a ranker; counted and named
  try {
    std::vector<std::optional<RankingVerdict>> v = options_.ranker->rank(candidates);
    if (v.size() == batch.size())
      verdicts = std::move(v);
    else
      error = "the ranker returned " + std::to_string(v.size()) + " verdicts for " + std::to_string(batch.size()) + " candidates";
  } catch (const std::exception &e) {
    error = e.what();
    if (error.empty()) error = "the ranker threw without a message";
  }
  std::vector<std::optional<CandidateOutcome>> ranked(batch.size());
  size_t count = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!verdicts[i]) continue;
    const Entry &e = *batch[i];
    try {
      reward::CandidateResult result = *e.result;
      applyRanking(result, e.taskDir, *verdicts[i]);
      CandidateOutcome o = fromResult(std::move(result), e.taskDir, e.sha, true);
      o.ranking = verdicts[i];
      o.feedback += "\n" + rankingFeedback(*verdicts[i]);
      o.seconds = e.seconds;
      ranked[i] = std::move(o);
      ++count;
    } catch (const std::exception &) {
      // keep the verdict-less outcome
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < batch.size(); ++i) {
    if (ranked[i]) batch[i]->outcome = std::move(ranked[i]);
    batch[i]->result.reset();
  }
  counts_.ranked += count;
  counts_.rankingCalls += batch.empty() ? 0 : 1;
  if (!error.empty()) {
    ++counts_.rankingErrors;
    counts_.lastRankingError = error;
  }
  counts_.rankSeconds += seconds;
  staged_.notify_all();
}

Json evaluatorStagesOf(const Json &result) {
  Json stages = Json::object();
  auto copy = [&stages](const Json *from, const std::string &prefix) {
    if (!from || !from->is_object()) return;
    for (auto it = from->begin(); it != from->end(); ++it)
      if (it.value().is_number()) stages[prefix + it.key()] = it.value();
  };
  copy(support::member(result, "stage_seconds"), "");
  if (const Json *worker = support::member(result, "worker"); worker && worker->is_object())
    copy(support::member(*worker, "stage_seconds"), "worker.");
  return stages.empty() ? Json(nullptr) : stages;
}

Json meanEvaluatorStages(const std::vector<Json> &candidateLines) {
  std::map<std::string, double> sums;
  size_t n = 0;
  for (const Json &line : candidateLines) {
    const Json *stages = support::member(line, "evaluator_stages");
    const Json *cached = support::member(line, "cached");
    if (!stages || !stages->is_object() || (cached && cached->is_boolean() && cached->get<bool>())) continue;
    ++n;
    for (auto it = stages->begin(); it != stages->end(); ++it)
      if (it.value().is_number()) sums[it.key()] += it.value().get<double>();
  }
  Json out{{"candidates", n}};
  for (const auto &[key, sum] : sums) out[key] = sum / double(n);
  return out;
}

CandidateOutcome RlEnvironment::fromResult(reward::CandidateResult result, const std::string &taskDir,
                                           const std::string &sha, bool extracted) const {
  CandidateOutcome o;
  o.taskDir = taskDir;
  o.sha256 = sha;
  o.extracted = extracted;
  const reward::RewardDocument &doc = result.reward;
  o.outcome = extracted ? doc.outcomeText() : "no_code_block";
  o.gate = doc.gate ? reward::gateName(*doc.gate) : "";
  o.total = doc.total;
  o.correct = doc.total && !doc.gate;
  o.turn = reward::turnFrom(doc);
  o.turn.sourceSha256 = sha;
  if (options_.rewardMode == "outcome" && doc.total && !doc.gate) {
    double sum = 0; // correctness and speed only: the structural, penalty, counter and learned terms left out
    for (const reward::RewardTerm &t : doc.terms)
      if (t.group == "outcome" || t.group == "speed") sum += t.contribution;
    o.turn.reward = sum;
  }
  o.reward = o.turn.reward;
  if (doc.mode != "static-only" && o.correct)
    if (const Json *s = support::member(result.resultJson, "speedup"); s && s->is_number()) o.speedup = s->get<double>();
  o.feedback = doc.feedback;
  o.document = reward::rewardSchemaDocument(doc);
  o.evaluatorStages = evaluatorStagesOf(result.resultJson);
  return o;
}

CandidateOutcome RlEnvironment::evaluate(const std::string &taskDir, const std::optional<std::string> &source,
                                         std::optional<reward::CandidateResult> *forRanking) {
  auto start = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const reward::RewardConfig &config = pipeline_->config();
  if (!source) {
    Json result = syntheticResult(taskDir, "", schema::Outcome::CompileError, "no code block",
                                  "the answer has no ```cuda code block", options_.staticOnly);
    CandidateOutcome o = fromResult(reward::rewardFromDocuments(config, result, "rl environment", std::nullopt,
                                                                std::nullopt, std::nullopt, "no code block"),
                                    taskDir, "", false);
    o.feedback = "Outcome: no code block (reward " + support::writeJson(Json(o.reward.value_or(0))) +
                 ").\nAnswer with one complete .cu file in a single ```cuda code block.";
    return o;
  }
  std::string sha = support::sha256Hex(*source);
  reward::CandidateRequest request;
  request.taskDir = taskDir;
  request.source = *source;
  std::string failure;
  // A candidate the evaluator dies on (no result document) is tried once more: a crash that was not
  // the candidate's doing does not repeat; one that repeats is the candidate's runtime_fault.
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      reward::CandidateResult result = pipeline_->run(request);
      // What the ranker can score (it needs the analysis, and a candidate past every gate) waits for
      // its batch (rankBatch) with this verdict-less outcome as the fallback.
      if (forRanking && options_.ranker && result.analysis && !result.reward.gate) *forRanking = result;
      CandidateOutcome o = fromResult(std::move(result), taskDir, sha, true);
      o.seconds = seconds();
      std::lock_guard<std::mutex> lock(mutex_);
      ++counts_.evaluated;
      return o;
    } catch (const std::exception &e) {
      failure = e.what();
    }
  }
  Json result = syntheticResult(taskDir, sha, schema::Outcome::RuntimeFault,
                                "the evaluator failed on this candidate twice: " + failure.substr(0, 400), "",
                                options_.staticOnly);
  CandidateOutcome o;
  try {
    o = fromResult(reward::rewardFromDocuments(config, result, "rl environment", std::nullopt, std::nullopt,
                                               std::nullopt, "the evaluator failed"),
                   taskDir, sha, true);
  } catch (const std::exception &e) { // cannot happen with the result above; never the trainer's end either
    o.taskDir = taskDir;
    o.sha256 = sha;
    o.extracted = true;
    o.outcome = o.gate = "runtime_fault";
    o.reward = o.total = config.gates.runtimeFault;
    o.turn.sourceSha256 = sha;
    o.turn.reward = o.reward;
    o.feedback = std::string("Outcome: runtime_fault (") + e.what() + ")";
  }
  o.evaluatorError = failure;
  o.seconds = seconds();
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_.evaluated;
  ++counts_.evaluatorFailures;
  return o;
}

// The pipeline's reward again with the ranking score as the learned term's input: the same documents
// (the candidate's analysis, and for static-only the task baseline's, as the pipeline passes it), so
// every other term is unchanged.
void RlEnvironment::applyRanking(reward::CandidateResult &result, const std::string &taskDir,
                                 const RankingVerdict &verdict) const {
  const features::AnalysisDocument &analysis = result.analysis->analysis();
  std::optional<features::AnalysisDocument> baseline;
  bool compileOnly = support::member(result.resultJson, "compile_only") && result.resultJson["compile_only"].is_boolean() &&
                     result.resultJson["compile_only"].get<bool>();
  if (compileOnly) baseline = options_.ranker->baselineAnalysis(taskDir);
  reward::CandidateResult ranked = reward::rewardFromDocuments(pipeline_->config(), result.resultJson, "cudaperf-eval output",
                                                               analysis, baseline, verdict.score);
  result.reward = std::move(ranked.reward);
}

std::string rankingFeedback(const RankingVerdict &v) {
  std::ostringstream s;
  s << std::showpos << std::fixed << std::setprecision(2) << v.score << std::noshowpos
    << (v.score > 0 ? ": the ranking model expects it faster than the task's baseline" : v.score < 0 ? ": the ranking model expects it slower than the task's baseline" : ": the ranking model expects it as fast as the task's baseline");
  if (!v.topFeatures.empty()) {
    s << " (it weighed most:";
    for (size_t i = 0; i < v.topFeatures.size(); ++i)
      s << (i ? ", " : " ") << v.topFeatures[i].first << " " << std::showpos << std::setprecision(2) << v.topFeatures[i].second << std::noshowpos;
    s << ")";
  }
  return "Ranking model score " + s.str() + ".";
}

std::vector<reward::TurnReward> RlEnvironment::score(const std::vector<const CandidateOutcome *> &turns) const {
  std::vector<reward::TurnInput> inputs;
  for (const CandidateOutcome *t : turns) inputs.push_back(t->turn);
  return reward::scoreTrajectory(config_, inputs);
}

std::unique_ptr<reward::Evaluator> makeEnvironmentEvaluator(const EnvironmentOptions &options) {
  if (options.evaluator == "serve") {
    reward::ServiceOptions s;
    s.evalPath = options.evalPath;
    s.extraArgs = options.evalArgs;
    s.compileOnly = options.staticOnly;
    s.timeoutSeconds = options.evalTimeout;
    return reward::makeServiceEvaluator(s);
  }
  if (options.evaluator == "queue") {
#ifdef CUDAPERF_HAVE_QUEUE
    queue::QueueEvaluatorOptions q;
    q.url = options.queueUrl;
    q.compileOnly = options.staticOnly;
    q.extraArgs = options.evalArgs;
    q.timeoutSeconds = options.evalTimeout;
    return queue::makeQueueEvaluator(q);
#else
    throw LearnError("evaluator queue: built without hiredis (libhiredis-dev)");
#endif
  }
  if (options.evaluator != "process")
    throw LearnError("evaluator: expected process, serve or queue, got \"" + options.evaluator + "\"");
  reward::EvaluatorOptions e;
  e.evalPath = options.evalPath;
  e.compileOnly = options.staticOnly;
  e.extraArgs = options.evalArgs;
  e.timeoutSeconds = options.evalTimeout;
  e.gpuSlots = 1; // candidates timed one at a time on the GPU
  return reward::makeProcessEvaluator(e);
}

void countKindOutcome(std::map<std::string, KindOutcomes> &byKind, const std::string &kind, const CandidateOutcome &o) {
  KindOutcomes &k = byKind[kind];
  ++k.candidates;
  std::optional<schema::Outcome> outcome = schema::parseOutcome(o.outcome);
  if (!o.extracted || !outcome || *outcome == schema::Outcome::CompileError) ++k.unevaluated;
  if (outcome != schema::Outcome::InternalError) return;
  ++k.internalErrors;
  if (k.firstDetail.empty()) k.firstDetail = o.document && !o.document->detail.empty() ? o.document->detail : o.evaluatorError;
}

std::string unrewardableKind(const std::map<std::string, KindOutcomes> &byKind, int64_t minimum) {
  for (const auto &[kind, k] : byKind)
    if (k.internalErrors >= std::max<int64_t>(1, minimum) && k.internalErrors == k.candidates - k.unevaluated)
      return "all " + std::to_string(k.internalErrors) + " candidates of kind " + kind + " that compiled got internal_error" +
             (k.unevaluated ? " (" + std::to_string(k.unevaluated) + " more did not compile or had no code block)" : std::string()) +
             ", so the evaluator cannot reward that kind (" +
             (k.firstDetail.empty() ? std::string("no detail") : k.firstDetail) +
             "); stopping before an update learns from the other kinds alone (fix the evaluator, or set kinds without " +
             kind + ")";
  return "";
}

} // namespace cudaperf::learn
