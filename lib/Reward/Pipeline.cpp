#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/CodeExtraction.h"
#include "cudaperf/Features/FeaturesError.h"
#include "cudaperf/Reward/Feedback.h"
#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"
#include "cudaperf/Support/Toolkit.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace cudaperf::reward {

namespace fs = std::filesystem;
using support::Json;

namespace {

std::string besideOrOnPath(const std::string &name) {
  std::string beside = support::executableDir() + "/" + name;
  if (access(beside.c_str(), X_OK) == 0)
    return beside;
  return support::findInPath(name);
}

std::string firstLines(const std::string &text, size_t maxLines) {
  std::istringstream in(text);
  std::string line, out;
  for (size_t n = 0; n < maxLines && std::getline(in, line); ++n)
    out += (out.empty() ? "" : "\n") + line;
  return out;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw RewardError(path + ": cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// GPU leases: at most `perDevice` evaluations at once on each device of the list (one pseudo-device,
// -1, when there is no list: cudaperf-eval then picks), the least busy device first.
class DeviceSlots {
public:
  DeviceSlots(const std::vector<int> &devices, int perDevice) {
    for (int d : devices.empty() ? std::vector<int>{-1} : devices)
      free_.push_back({d, perDevice});
  }
  int acquire() {
    std::unique_lock<std::mutex> lock(m_);
    std::pair<int, int> *best = nullptr;
    cv_.wait(lock, [&] {
      best = nullptr;
      for (auto &f : free_)
        if (f.second > 0 && (!best || f.second > best->second))
          best = &f;
      return best != nullptr;
    });
    --best->second;
    return best->first;
  }
  void release(int device) {
    {
      std::lock_guard<std::mutex> lock(m_);
      for (auto &f : free_)
        if (f.first == device)
          ++f.second;
    }
    cv_.notify_one();
  }

private:
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<std::pair<int, int>> free_; // device, free slots
};

class ProcessEvaluator : public Evaluator {
public:
  explicit ProcessEvaluator(EvaluatorOptions o)
      : options_(std::move(o)), slots_(options_.devices, std::max(1, options_.gpuSlots)) {
    if (options_.evalPath.empty())
      options_.evalPath = besideOrOnPath("cudaperf-eval");
    if (options_.evalPath.empty())
      throw RewardError("cudaperf-eval not found beside this program or on PATH (use --eval)");
  }

  Json evaluate(const std::string &taskDir, const std::string &candidatePath) override {
    std::vector<std::string> argv = {options_.evalPath, taskDir, candidatePath, "--jsonl"};
    if (options_.compileOnly)
      argv.push_back("--compile-only");
    if (options_.counters)
      argv.push_back("--counters");
    argv.insert(argv.end(), options_.extraArgs.begin(), options_.extraArgs.end());
    support::ProcessOptions po;
    po.timeoutSeconds = options_.timeoutSeconds;
    po.separateStderr = true;
    po.maxCapturedBytes = size_t(256) << 20;
    support::ProcessResult r;
    if (options_.compileOnly) {
      r = support::runProcess(argv, po);
    } else {
      int device = slots_.acquire();
      if (device >= 0) { // this candidate's GPU of the list
        argv.push_back("--devices");
        argv.push_back(std::to_string(device));
      }
      try {
        r = support::runProcess(argv, po);
      } catch (...) {
        slots_.release(device);
        throw;
      }
      slots_.release(device);
    }
    // The result is the last line of stdout; exit 1 comes with an internal_error result.
    std::string last;
    std::istringstream out(r.output);
    for (std::string line; std::getline(out, line);)
      if (line.find_first_not_of(" \t\r") != std::string::npos)
        last = line;
    std::string what = options_.evalPath + " " + taskDir + " " + candidatePath;
    if (last.empty() || r.outputTruncated)
      throw RewardError(what + ": " + r.describe() + ", no result document" +
                        (r.errorOutput.empty() ? "" : ":\n" + firstLines(r.errorOutput, 12)));
    try {
      return support::parseJson(last, "cudaperf-eval output");
    } catch (const support::SupportError &e) {
      throw RewardError(what + ": " + e.what());
    }
  }

  std::string describe() const override {
    return "cudaperf-eval per candidate (" + options_.evalPath + (options_.compileOnly ? ", --compile-only" : "") +
           (options_.counters ? ", --counters" : "") +
           (options_.devices.empty() ? "" : ", GPUs " + std::to_string(options_.devices.size())) + ")";
  }

private:
  EvaluatorOptions options_;
  DeviceSlots slots_;
};

} // namespace

std::unique_ptr<Evaluator> makeProcessEvaluator(const EvaluatorOptions &options) {
  return std::make_unique<ProcessEvaluator>(options);
}

features::AnalysisDocument runTaskAnalysis(const AnalyzerOptions &options, const std::string &taskDir,
                                           const std::string &candidate) {
  features::FeatureRequest request;
  request.taskDir = taskDir;
  request.candidatePath = candidate;
  request.analyzerPath = options.analyzerPath;
  request.analyzerFlags = options.flags;
  request.analyzerTimeoutSeconds = options.timeoutSeconds;
  try {
    return features::computeFeatures(request)->analysis();
  } catch (const features::FeaturesError &e) {
    throw RewardError(e.what());
  }
}

CandidateResult rewardFromDocuments(const RewardConfig &config, const Json &resultJson, const std::string &resultSource,
                                    std::optional<features::AnalysisDocument> analysis,
                                    std::optional<features::AnalysisDocument> baseline,
                                    std::optional<double> rankingScore, std::string analysisError) {
  CandidateResult out;
  out.resultJson = resultJson;
  features::EvalResult result;
  std::shared_ptr<features::FeatureSet> baselineSet;
  try {
    result = features::readEvalResult(resultJson, resultSource);
    if (analysis) {
      try {
        out.analysis = std::make_shared<features::FeatureSet>(std::move(*analysis), result);
      } catch (const features::FeaturesError &e) {
        analysisError = e.what(); // a document without the result's configurations: no static terms
      }
    }
    if (baseline)
      baselineSet = std::make_shared<features::FeatureSet>(std::move(*baseline), std::nullopt);
  } catch (const features::FeaturesError &e) {
    throw RewardError(e.what());
  }
  RewardInputs in;
  in.result = out.analysis ? out.analysis->result() : &result;
  in.resultJson = &out.resultJson;
  in.analysis = out.analysis.get();
  in.analysisError = out.analysis ? "" : (analysisError.empty() ? "no analysis" : analysisError);
  in.baselineAnalysis = baselineSet.get();
  in.rankingScore = rankingScore;
  out.reward = computeReward(config, in);
  out.reward.feedback = feedbackText(config, out.reward, out.analysis.get());
  return out;
}

RewardPipeline::RewardPipeline(RewardConfig config, std::unique_ptr<Evaluator> evaluator, AnalyzerOptions analyzer,
                               std::string workDir)
    : config_(std::move(config)), evaluator_(std::move(evaluator)), analyzer_(std::move(analyzer)),
      workDir_(std::move(workDir)) {
  if (workDir_.empty()) {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/cudaperf-reward-XXXXXX";
    if (!mkdtemp(pattern.data()))
      throw RewardError("cannot create a work directory from " + pattern);
    workDir_ = pattern;
    ownsWorkDir_ = true;
  } else {
    std::error_code ec;
    fs::create_directories(workDir_, ec);
    if (ec)
      throw RewardError(workDir_ + ": cannot create the work directory: " + ec.message());
  }
}

RewardPipeline::~RewardPipeline() {
  if (ownsWorkDir_)
    support::removeTree(workDir_); // not fs::remove_all: see removeTree (the trainer links LibTorch)
}

std::string RewardPipeline::describe() const {
  return "reward config " + config_.name + " (" + rewardConfigDigest(config_).substr(0, 12) + ", " + config_.source +
         "); evaluator: " + evaluator_->describe() +
         "; analyzer: " + (analyzer_.analyzerPath.empty() ? "cudaperf-analyze beside this program or on PATH"
                                                            : analyzer_.analyzerPath);
}

std::string RewardPipeline::materialize(const CandidateRequest &request) {
  if (request.source.empty())
    return request.candidatePath;
  // Content-addressed: requests with the same source in flight share one file. It lives while
  // they run (release), so the work directory holds at most one file per request in flight.
  std::string path = workDir_ + "/" + support::sha256Hex(request.source).substr(0, 24) + ".cu";
  std::lock_guard<std::mutex> lock(mutex_);
  if (materialized_[path]++ == 0) {
    try {
      std::string tmp = path + ".tmp" + std::to_string(getpid());
      {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << request.source;
        if (!out)
          throw RewardError(tmp + ": cannot write the candidate's source");
      }
      fs::rename(tmp, path);
    } catch (...) {
      materialized_.erase(path);
      throw;
    }
  }
  return path;
}

void RewardPipeline::release(const std::string &path) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = materialized_.find(path);
  if (it == materialized_.end() || --it->second > 0)
    return;
  materialized_.erase(it);
  std::error_code ec;
  fs::remove(path, ec);
}

CandidateResult noCodeBlockResult(const RewardConfig &config, const std::string &taskDir,
                                  const std::string &completion, const std::string &reason) {
  CandidateResult out;
  out.resultJson = Json(nullptr);
  RewardDocument &doc = out.reward;
  doc.task = fs::path(taskDir).filename().string();
  doc.taskKind = "";
  doc.candidate = "";
  doc.candidateSha256 = support::sha256Hex(completion); // of the completion: repeats are still seen
  doc.mode = "not-run";
  doc.gate = Gate::NoCodeBlock; // no outcome: its "outcome" is written as the gate's name
  doc.detail = reason;
  doc.gateReason = reason;
  doc.configName = config.name;
  doc.configDigest = rewardConfigDigest(config);
  RewardTerm t;
  t.name = "gate";
  t.group = "outcome";
  t.value = gateReward(config, *doc.gate);
  t.weight = 1;
  t.contribution = *t.value;
  t.inputs = Json::object({{"gate", gateName(*doc.gate)}, {"reason", reason}});
  doc.terms.push_back(std::move(t));
  doc.total = gateReward(config, *doc.gate);
  doc.feedback = feedbackText(config, doc, nullptr);
  return out;
}

CandidateResult RewardPipeline::run(const CandidateRequest &asked) {
  if (asked.taskDir.empty() || !fs::exists(fs::path(asked.taskDir) / "task.json"))
    throw RewardError("task: " + (asked.taskDir.empty() ? std::string("no task directory given")
                                                        : asked.taskDir + " has no task.json"));
  CandidateRequest request = asked;
  if (asked.completion) {
    std::string code = asked.source; // already extracted by the request layer (Requests.cpp), or
    if (code.empty()) {
      std::optional<ExtractedCode> block = extractCodeBlock(*asked.completion);
      if (!block)
        return noCodeBlockResult(config_, asked.taskDir, *asked.completion, noCodeBlockReason(*asked.completion));
      code = std::move(block->code);
    }
    if (code.find_first_not_of(" \t\r\n") == std::string::npos)
      return noCodeBlockResult(config_, asked.taskDir, *asked.completion, "the completion's code block is empty");
    request.source = std::move(code);
    request.candidatePath.clear();
    request.completion.reset();
  }
  std::string candidate = materialize(request);
  struct Release {
    RewardPipeline &pipeline;
    const CandidateRequest &request;
    const std::string &path;
    ~Release() {
      if (!request.source.empty())
        pipeline.release(path);
    }
  } releaseAtEnd{*this, request, candidate};
  std::string source = readFile(candidate);
  std::string key = request.taskDir + "\n" + support::sha256Hex(source) + "\n" +
                    (request.rankingScore ? std::to_string(*request.rankingScore) : "-");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = cache_.begin(); it != cache_.end(); ++it)
      if (it->first == key) {
        cache_.splice(cache_.begin(), cache_, it);
        return *cache_.front().second;
      }
  }

  bool analysisOn = analyzer_.analyzerPath != "none";
  std::future<features::AnalysisDocument> analysis;
  if (analysisOn)
    analysis = std::async(std::launch::async, [&] { return runTaskAnalysis(analyzer_, request.taskDir, candidate); });
  Json result;
  try {
    result = evaluator_->evaluate(request.taskDir, candidate);
  } catch (...) {
    if (analysis.valid())
      analysis.wait();
    throw;
  }
  std::optional<features::AnalysisDocument> analysisDoc;
  std::string analysisError = analysisOn ? "" : "the analysis is off (--analyzer none)";
  if (analysis.valid()) {
    try {
      analysisDoc = analysis.get();
    } catch (const RewardError &e) {
      analysisError = e.what();
    }
  }
  // Static-only: the predicted speedup needs the task's baseline analysed the same way (cached).
  std::optional<features::AnalysisDocument> baseline;
  bool compileOnly = support::member(result, "compile_only") && result["compile_only"].is_boolean() &&
                     result["compile_only"].get<bool>();
  std::string baselinePath = (fs::path(request.taskDir) / "impls" / "baseline.cu").string();
  if (compileOnly && analysisOn && fs::exists(baselinePath)) {
    std::string baseKey = request.taskDir + "\n" + support::sha256Hex(readFile(baselinePath));
    std::shared_ptr<features::FeatureSet> cached;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = baselines_.find(baseKey);
      if (it != baselines_.end())
        cached = it->second;
    }
    if (!cached) {
      try {
        cached = std::make_shared<features::FeatureSet>(runTaskAnalysis(analyzer_, request.taskDir, baselinePath),
                                                        std::nullopt);
      } catch (const std::exception &) {
        cached = nullptr; // the predicted speedup is then missing; the rest stands
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (baselines_.size() >= kBaselineEntries) // bounded (a changed baseline is a new key)
        baselines_.erase(baselines_.begin());
      baselines_[baseKey] = cached;
    }
    if (cached)
      baseline = cached->analysis();
  }
  auto out = std::make_shared<CandidateResult>(rewardFromDocuments(config_, result, "cudaperf-eval output",
                                                                   std::move(analysisDoc), std::move(baseline),
                                                                   request.rankingScore, analysisError));
  std::lock_guard<std::mutex> lock(mutex_);
  cache_.emplace_front(key, out);
  if (cache_.size() > kCacheEntries)
    cache_.pop_back();
  return *out;
}

std::vector<TurnReward> RewardPipeline::trajectory(const std::vector<CandidateResult> &turns) const {
  std::vector<TurnInput> inputs;
  for (const CandidateResult &t : turns)
    inputs.push_back(turnFrom(t.reward));
  return scoreTrajectory(config_, inputs);
}

Json RewardPipeline::documentJson(const CandidateResult &result) const { return rewardToJson(result.reward); }

} // namespace cudaperf::reward
