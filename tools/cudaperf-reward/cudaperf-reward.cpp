// cudaperf-reward: the unified reward of a candidate (docs/reward.md). One candidate (analysis and
// evaluation as subprocesses), the documents of an earlier analysis and evaluation, a JSON Lines
// batch on stdin for trainers in any language, or an HTTP service (--serve).
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

namespace {

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitInternalError = 3;

struct Options {
  std::string configPath, format = "json";
  bool staticOnly = false, counters = false, batch = false, serve = false, printConfig = false, withResults = false;
  std::optional<double> rankingScore;
  std::string analysisPath, resultPath, baselineAnalysisPath;
  AnalyzerOptions analyzer;
  EvaluatorOptions evaluator;
  std::string workDir;
  RequestPolicy requests;
  support::ChildPolicy children;
  int jobs = 2;
  std::string queueUrl; // --queue redis://...: the work queue instead of a local cudaperf-eval
  ServerOptions server;
  Options() { children.addressSpaceLimit = int64_t(8192) << 20; }
};

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

int main(int argc, char **argv) {
  Options o;
  support::ArgParser args(
      "cudaperf-reward",
      {"TASK_DIR CANDIDATE.cu [options]", "--result R.json [--analysis A.json] [TASK_DIR CANDIDATE.cu] [options]",
       "--batch [options] < requests.jsonl", "--serve --port N [options]"},
      "The unified reward of CUDA candidates (docs/reward.md): gates for failures and hacks, speedup over\n"
      "the task's baseline, structural terms of the static analysis, counter terms, a learned term, and\n"
      "the feedback text for the next turn. TASK_DIR CANDIDATE.cu runs cudaperf-analyze --task and\n"
      "cudaperf-eval as subprocesses; --result/--analysis take their documents instead.");
  args.option("--config", "FILE", "reward config (default: the built-in one, data/reward/default.json)", o.configPath)
      .flag("--static-only", "no GPU: cudaperf-eval --compile-only and the analysis terms", o.staticOnly)
      .flag("--counters", "evaluate with the hardware-counter pass (cudaperf-eval --counters)", o.counters)
      .option("--ranking-score", "X", "the ranking model's score of the candidate (the learned term)",
              [&](const std::string &v) { o.rankingScore = support::parseNumber(v); })
      .option("--result", "R.json", "an eval result (or JSON Lines of them) instead of running cudaperf-eval",
              o.resultPath)
      .option("--analysis", "A.json", "a cudaperf-analyze --task document instead of running the analyzer",
              o.analysisPath)
      .option("--baseline-analysis", "B.json", "the task baseline's --task document (static-only predicted speedup)",
              o.baselineAnalysisPath)
      .option("--analyzer", "PATH|none", "cudaperf-analyze to run (default: beside this program, then PATH)",
              o.analyzer.analyzerPath)
      .option("--analyzer-flag", "FLAG", "a flag for the analyzer (after its --; repeatable)",
              [&](const std::string &v) { o.analyzer.flags.push_back(v); })
      .option("--analyzer-timeout", "S", "seconds per analysis (300)",
              [&](const std::string &v) { o.analyzer.timeoutSeconds = support::parseNumber(v, 1); })
      .option("--eval", "PATH", "cudaperf-eval to run (default: beside this program, then PATH)", o.evaluator.evalPath)
      .option("--eval-arg", "ARG", "an argument for cudaperf-eval (repeatable: --eval-arg=--configs --eval-arg=small)",
              [&](const std::string &v) { o.evaluator.extraArgs.push_back(v); })
      .option("--eval-timeout", "S", "seconds per evaluation (900)",
              [&](const std::string &v) { o.evaluator.timeoutSeconds = support::parseNumber(v, 1); })
      .option("--gpu-slots", "N", "evaluations on the GPU at once (1)",
              [&](const std::string &v) { o.evaluator.gpuSlots = int(support::parseInteger(v, 1, 64)); })
      .option("--devices", "LIST", "GPUs to spread evaluations over, --gpu-slots each: 0,1,... (default: "
              "cudaperf-eval's choice); raise --jobs to keep them busy",
              [&](const std::string &v) {
                o.evaluator.devices.clear();
                std::stringstream list(v);
                for (std::string item; std::getline(list, item, ',');)
                  o.evaluator.devices.push_back(int(support::parseInteger(item, 0, 1023)));
                if (o.evaluator.devices.empty())
                  throw support::SupportError("--devices: expected a list such as 0,1");
              })
      .option("--jobs", "N", "requests handled at once in --batch and --serve (2)",
              [&](const std::string &v) { o.jobs = int(support::parseInteger(v, 1, 256)); })
      .option("--work-dir", "DIR", "where candidates given as source text are written (default: a temporary one)",
              o.workDir)
      .option("--task-root", "DIR", "--batch/--serve: task directories are relative to DIR and may not leave it",
              o.requests.taskRoot)
      .option("--candidate-root", "DIR",
              "--batch/--serve: requests may name candidate files (\"candidate\") that resolve inside DIR;\n"
              "without it only source text (\"source\") is taken (docs/reward.md, \"Trust\")",
              o.requests.candidateRoot)
      .option("--token-file", "FILE", "--serve: bearer tokens, one a line (each a client); requests without one get 401",
              o.server.tokenFile)
      .option("--child-memory-mb", "MB", "--batch/--serve: address-space limit of the analyzer and compilers (8192)",
              [&](const std::string &v) { o.children.addressSpaceLimit = support::parseInteger(v, 0, 1 << 24) << 20; })
      .option("--keep-env", "NAME", "--batch/--serve: pass this variable to the children too (repeatable; default: "
              "a minimal environment, docs/security.md)",
              [&](const std::string &v) { o.children.keepVariables.push_back(v); })
      .flag("--trust-tasks", "tasks may carry any compiler flags (default: an allow-list, docs/task-format.md)",
            [&] { setenv("CUDAPERF_TRUST_TASKS", "1", 1); })
      .option("--format", "json|jsonl|text", "the reward document pretty (json), on one line, or the feedback text",
              [&](const std::string &v) {
                if (v != "json" && v != "jsonl" && v != "text")
                  throw support::SupportError("expected json, jsonl or text, got '" + v + "'");
                o.format = v;
              })
      .flag("--batch", "JSON Lines requests on stdin, records on stdout in completion order", o.batch)
      .flag("--serve", "the HTTP service (docs/reward.md, \"Service\")", o.serve)
      .flag("--records-with-results", "--batch/--serve: each record also carries its eval result (\"result\")",
            o.withResults)
      .option("--host", "ADDR", "--serve: address to listen on (127.0.0.1)", o.server.host)
      .option("--port", "N", "--serve: port (0: any free one, printed on stdout)",
              [&](const std::string &v) { o.server.port = int(support::parseInteger(v, 0, 65535)); })
      .option("--port-file", "FILE", "--serve: write the port here once listening", o.server.portFile)
      .option("--queue", "redis://HOST:PORT/QUEUE|N",
              "a redis:// URL: submit each candidate (with its task's files) to the work queue instead of\n"
              "running cudaperf-eval here; workers are cudaperf-eval --worker URL (docs/reward.md, \"Through the\n"
              "queue\"); --eval-timeout bounds each wait. A number N: --serve's candidates waiting at most (256);\n"
              "more get 503 with Retry-After",
              [&](const std::string &v) {
                if (v.rfind("redis:", 0) == 0) {
#ifdef CUDAPERF_HAVE_QUEUE
                  try {
                    queue::parseRedisUrl(v);
                  } catch (const queue::QueueError &e) {
                    throw support::SupportError(e.what());
                  }
                  o.queueUrl = v;
#else
                  throw support::SupportError("built without hiredis (libhiredis-dev): --queue redis:// is not available");
#endif
                } else {
                  o.server.queueLimit = int(support::parseInteger(v, 1, 1 << 20));
                }
              })
      .option("--header-timeout", "S", "--serve: a request's line and headers must arrive within S seconds of its "
              "first byte (10), its body within 120 s after them; slower clients are disconnected",
              [&](const std::string &v) { o.server.headerTimeoutSeconds = int(support::parseInteger(v, 1, 3600)); })
      .option("--max-batches", "N", "--serve: batches kept for polling at most (4096; each also at most 600 s "
              "after it finished); past it the longest-finished are forgotten (404)",
              [&](const std::string &v) { o.server.maxBatches = int(support::parseInteger(v, 1, 1 << 20)); })
      .flag("--print-config", "print the reward config in effect (JSON) and exit", o.printConfig)
      .epilog("exit codes: 0 a reward was written (whatever the candidate's outcome; --batch/--serve: input\n"
              "ended or the service was stopped), 1 no reward could be computed (the message says why), 2 bad\n"
              "usage, 3 the evaluator could not judge the candidate (internal_error: reward null)");
  std::vector<std::string> positional;
  try {
    support::ParsedArgs parsed = args.parse(argc, argv);
    if (parsed.helpRequested) {
      std::cout << args.help();
      return kExitOk;
    }
    positional = parsed.positional;
    int modes = int(o.batch) + int(o.serve) + int(!o.resultPath.empty());
    if (modes > 1)
      throw support::SupportError("--batch, --serve and --result are separate modes");
    if (!o.analysisPath.empty() && o.resultPath.empty())
      throw support::SupportError("--analysis needs --result (the eval result to reward)");
    bool needsCandidate = modes == 0 && !o.printConfig;
    if (needsCandidate && positional.size() != 2)
      throw support::SupportError("expected TASK_DIR and CANDIDATE.cu");
    if (!needsCandidate && !positional.empty() && !(positional.size() == 2 && !o.resultPath.empty()))
      throw support::SupportError("unexpected argument '" + positional[0] + "'");
  } catch (const support::SupportError &e) {
    std::cerr << "cudaperf-reward: " << e.what() << "\n" << args.usageHint();
    return kExitUsage;
  }

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
