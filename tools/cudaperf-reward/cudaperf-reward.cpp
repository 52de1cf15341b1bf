// cudaperf-reward: the unified reward of a candidate (docs/reward.md). One candidate (analysis and
// evaluation as subprocesses), the documents of an earlier analysis and evaluation, a JSON Lines
// batch on stdin for trainers in any language, or an HTTP service (--serve).
#include "RewardTool.h"

#include "cudaperf/Support/ArgParser.h"
#ifdef CUDAPERF_HAVE_QUEUE
#include "cudaperf/Queue/RewardEvaluator.h"
#endif

#include <cstdlib>
#include <iostream>
#include <sstream>

using namespace cudaperf;
using namespace cudaperf::rewardtool;

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

  return runReward(o, positional);
}
