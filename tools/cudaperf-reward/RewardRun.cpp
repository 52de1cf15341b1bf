// cudaperf-reward's modes (RewardTool.h): one candidate, the documents of an earlier analysis and
// evaluation (--result), a JSON Lines batch on stdin (--batch), the HTTP service (--serve).
#include "RewardTool.h"

#include "cudaperf/Features/Features.h"
#include "cudaperf/Features/FeaturesError.h"
#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/Requests.h"
#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Reward/Server.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Subprocess.h"
#ifdef CUDAPERF_HAVE_QUEUE
#include "cudaperf/Queue/RewardEvaluator.h"
#endif

#include <atomic>
#include <cstdlib>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

using namespace cudaperf;
using namespace cudaperf::reward;
using support::Json;

namespace cudaperf::rewardtool {

namespace {

void printDocument(const Options &o, const CandidateResult &r) {
  if (o.format == "text") {
    std::cout << r.reward.feedback << "\n";
    return;
  }
  std::cout << support::writeJson(rewardToJson(r.reward), o.format == "jsonl" ? -1 : 2) << "\n";
}

int exitFor(const CandidateResult &r) { return r.reward.total ? kExitOk : kExitInternalError; }

// The documents of a result file: one JSON document, or JSON Lines (`FILE:LINE` in messages).
std::vector<std::pair<Json, std::string>> readDocuments(const std::string &path) {
  std::string text = support::readRegularFile(path); // a regular file of a bounded size (not /dev/zero)
  std::vector<std::pair<Json, std::string>> docs;
  try {
    docs.emplace_back(support::parseJson(text, path), path);
    return docs;
  } catch (const support::SupportError &) {
  }
  std::istringstream lines(text);
  int n = 0;
  for (std::string line; std::getline(lines, line);) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    std::string where = path + ":" + std::to_string(n);
    docs.emplace_back(support::parseJson(line, where), where); // a SupportError of kind Input: exit 1
  }
  return docs;
}

// --analysis/--result: everything was run before.
int fromDocuments(const Options &o, const RewardConfig &config, const std::vector<std::string> &positional) {
  std::vector<std::pair<Json, std::string>> docs = readDocuments(o.resultPath);
  std::vector<features::EvalResult> results;
  for (const auto &[doc, where] : docs)
    results.push_back(features::readEvalResult(doc, where));
  size_t chosen = 0;
  if (positional.size() == 2) {
    std::string sha = features::selectResult(results, positional[1]).candidateSha256;
    for (size_t i = 0; i < results.size(); ++i)
      if (results[i].candidateSha256 == sha)
        chosen = i;
  } else if (results.size() != 1) {
    throw RewardError(o.resultPath + ": " + std::to_string(results.size()) +
                      " results; name TASK_DIR CANDIDATE.cu to pick the candidate's");
  }
  std::optional<features::AnalysisDocument> analysis, baseline;
  std::string analysisError = "no --analysis given";
  if (!o.analysisPath.empty()) {
    analysis = features::readAnalysisFile(o.analysisPath);
    analysisError.clear();
  }
  if (!o.baselineAnalysisPath.empty())
    baseline = features::readAnalysisFile(o.baselineAnalysisPath);
  CandidateResult r = rewardFromDocuments(config, docs.at(chosen).first, docs.at(chosen).second, std::move(analysis),
                                          std::move(baseline), o.rankingScore, analysisError);
  printDocument(o, r);
  return exitFor(r);
}

// JSON Lines in, JSON Lines out in completion order; `jobs` requests at once.
int batchMode(const Options &o, RewardPipeline &pipeline) {
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::pair<int, std::string>> lines;
  bool done = false;
  std::mutex outMutex;
  auto emit = [&](const Json &record) {
    std::lock_guard<std::mutex> lock(outMutex);
    std::cout << support::writeJson(record) << std::endl;
  };
  auto work = [&] {
    for (;;) {
      std::pair<int, std::string> item;
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return done || !lines.empty(); });
        if (lines.empty())
          return;
        item = std::move(lines.front());
        lines.pop_front();
      }
      cv.notify_all();
      std::string where = "stdin:" + std::to_string(item.first);
      Json id = nullptr;
      try {
        support::JsonLimits limits;
        limits.maxDepth = 16;
        limits.maxValues = 100000;
        Json request = support::parseJson(item.second, where, limits);
        if (const Json *i = support::member(request, "id"))
          id = *i;
        emit(serveRewardRequest(pipeline, parseRewardRequest(request, where, o.requests), o.withResults));
      } catch (const std::exception &e) {
        emit(errorRecord(id, 400, e.what()));
      }
    }
  };
  std::vector<std::thread> workers;
  for (int i = 0; i < std::max(1, o.jobs); ++i)
    workers.emplace_back(work);
  int n = 0;
  for (std::string line; std::getline(std::cin, line);) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    std::unique_lock<std::mutex> lock(m);
    // Read ahead no more than the workers can take, so a long stdin is not held in memory.
    cv.wait(lock, [&] { return lines.size() < size_t(2 * std::max(1, o.jobs)); });
    lines.emplace_back(n, std::move(line));
    cv.notify_all();
  }
  {
    std::lock_guard<std::mutex> lock(m);
    done = true;
  }
  cv.notify_all();
  for (std::thread &t : workers)
    t.join();
  return std::cout.good() ? kExitOk : kExitFailed;
}

} // namespace

int runReward(Options &o, const std::vector<std::string> &positional) {
  try {
    RewardConfig config = o.configPath.empty() ? RewardConfig() : loadRewardConfig(o.configPath);
    if (o.printConfig) {
      std::cout << support::writeJson(rewardConfigToJson(config), 2) << "\n";
      return kExitOk;
    }
    if (!o.resultPath.empty())
      return fromDocuments(o, config, positional);
    o.evaluator.compileOnly = o.staticOnly;
    o.evaluator.counters = o.counters;
    if (o.batch || o.serve) {
      // Children of a service run hostile source: no secret of this environment reaches them, and
      // the analyzer (and its nvcc) get bounded memory and CPU time (docs/security.md).
      o.children.minimalEnvironment = true;
      o.children.limitedPrograms = {"cudaperf-analyze", "nvcc"};
      o.children.cpuSecondsLimit = int64_t(o.analyzer.timeoutSeconds) + 5;
      support::setChildPolicy(o.children);
    }
    std::unique_ptr<Evaluator> evaluator;
#ifdef CUDAPERF_HAVE_QUEUE
    if (!o.queueUrl.empty()) {
      queue::QueueEvaluatorOptions q;
      q.url = o.queueUrl;
      q.compileOnly = o.staticOnly;
      q.counters = o.counters;
      q.extraArgs = o.evaluator.extraArgs;
      q.timeoutSeconds = o.evaluator.timeoutSeconds;
      evaluator = queue::makeQueueEvaluator(q);
    }
#endif
    if (!evaluator)
      evaluator = makeProcessEvaluator(o.evaluator);
    RewardPipeline pipeline(config, std::move(evaluator), o.analyzer, o.workDir);
    if (o.batch)
      return batchMode(o, pipeline);
    if (o.serve) {
#ifdef CUDAPERF_HAVE_SERVER
      o.server.jobs = o.jobs;
      o.server.requests = o.requests;
      o.server.withResults = o.withResults;
      return runServer(pipeline, o.server);
#else
      std::cerr << "cudaperf-reward: built without --serve (cpp-httplib was not found at configure time)\n";
      return kExitUsage;
#endif
    }
    CandidateRequest request;
    request.taskDir = positional[0];
    request.candidatePath = positional[1];
    request.rankingScore = o.rankingScore;
    CandidateResult r = pipeline.run(request);
    printDocument(o, r);
    return exitFor(r);
  } catch (const std::exception &e) { // RewardError, FeaturesError, a corrupt document: 1, by kind
    return support::reportError("cudaperf-reward", e);
  }
}

} // namespace cudaperf::rewardtool
