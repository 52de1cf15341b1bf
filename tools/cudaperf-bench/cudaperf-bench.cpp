// cudaperf-bench: scores a model's candidates over a suite with the figures the field reports
// (correctness, fast_p against the baseline, PyTorch eager and torch.compile, pass@k, fast_p@k,
// per-turn figures, bootstrap intervals); docs/bench.md.
#include "BenchQueue.h"
#include "cudaperf/Bench/Bench.h"
#include "cudaperf/Bench/BenchError.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Error.h"
#include "cudaperf/Support/Json.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <cerrno>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

using namespace cudaperf::bench;
namespace support = cudaperf::support;
namespace fs = std::filesystem;

namespace {

// Exit codes (docs/bench.md).
constexpr int kExitOk = 0;
constexpr int kExitRun = 1;        // the evaluator could not run, or output could not be written
constexpr int kExitUsage = 2;      // bad command line
constexpr int kExitSuite = 3;      // the suite, or a task it names
constexpr int kExitCandidates = 4; // the candidate directory
constexpr int kExitResults = 5;    // a result file

struct CommandLine {
  std::string suitePath, candidatesDir, resultsPath, outDir, evalPath, torchTimingsPath;
  SuiteOptions suiteOptions;
  ScoreInputs inputs;
  int jobs = 8;
  bool useImpls = false;
  std::vector<std::string> evalArgs;
  std::string queueUrl;     // --queue redis://...: cudaperf-eval --submit instead of a local evaluation
  double queueWait = 3600;  // --queue-wait S
};

std::vector<double> numberList(const std::string &text) {
  std::vector<double> values;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    values.push_back(support::parseNumber(item, 0));
  if (values.empty())
    throw support::SupportError("expected a comma-separated list of numbers, got '" + text + "'");
  return values;
}

support::ArgParser benchArgs(CommandLine &c) {
  using support::parseInteger;
  ScoreInputs &in = c.inputs;
  support::ArgParser p(
      "cudaperf-bench",
      {"--suite SUITE.json (--candidates DIR | --impls) [--samples K] [--turns T] [--out DIR] [options]",
       "--results RESULTS.jsonl [--suite SUITE.json] [--candidates DIR | --impls] [--out DIR] [options]"},
      "Evaluates every candidate with cudaperf-eval (or, with --results, scores results already made,\n"
      "without a GPU) and writes OUT/bench.json, OUT/bench.md, OUT/fast_p.svg and OUT/speedups.svg\n"
      "(docs/bench.md). Candidates are named by task: DIR/<task>.cu, DIR/<task>/<sample>.cu or\n"
      "DIR/<task>/<sample>/turn<t>.cu.");
  p.option("--suite", "FILE", "the suite (data/suites/*.json)", c.suitePath)
      .option("--candidates", "DIR", "the candidate directory", c.candidatesDir)
      .flag("--impls", "candidates are each task's own impls/*.cu (sample = file name)", c.useImpls)
      .option("--results", "FILE", "score these cudaperf-eval results instead of evaluating", c.resultsPath)
      .option("--samples", "K", "K samples per task, named 0..K-1; a missing one counts as a failure",
              [&](const std::string &v) { in.samples = int(parseInteger(v, 1, 1000000)); })
      .option("--turns", "T", "use refinement turns 1..T only",
              [&](const std::string &v) { in.turns = int(parseInteger(v, 1, 1000000)); })
      .option("--out,-o", "DIR", "output directory (default bench-<suite name>)", c.outDir)
      .option("--root", "DIR", "the suite's task root instead of its \"root\" (a dataset directory for tasks_from)",
              c.suiteOptions.rootOverride)
      .flag("--allow-missing-tasks", "report tasks the suite lists but that are absent instead of failing",
            c.suiteOptions.allowMissing)
      .option("--p", "LIST", "fast_p thresholds (default 0,1,1.2,1.5,2)",
              [&](const std::string &v) { in.options.pValues = numberList(v); })
      .option("--k", "LIST", "pass@k and fast_p@k values (default 1,2,4,... up to K)",
              [&](const std::string &v) {
                in.options.kValues.clear();
                std::stringstream ss(v);
                for (std::string item; std::getline(ss, item, ',');)
                  in.options.kValues.push_back(int(parseInteger(item, 1, 1000000)));
              })
      .option("--resamples", "N", "bootstrap resamples over tasks (default 1000; 0: no intervals)",
              [&](const std::string &v) { in.options.resamples = int(parseInteger(v, 0, 10000000)); })
      .option("--seed", "N", "bootstrap seed (default 0)",
              [&](const std::string &v) { in.options.seed = support::parseUnsigned(v); })
      .option("--confidence", "X", "interval coverage (default 0.95)",
              [&](const std::string &v) { in.options.confidence = support::parseNumber(v, 0.01, 0.999); })
      .option("--torch-timings", "FILE",
              "torch.compile timings (JSON Lines of cudaperf-torch-timing/1) instead of\n"
              "each task's exported/torch-timing.json (for stored runs)",
              c.torchTimingsPath)
      .option("--eval", "PATH", "cudaperf-eval to run (default: beside cudaperf-bench, else on PATH)", c.evalPath)
      .option("--jobs,-j", "N", "parallel builds in cudaperf-eval (default 8)",
              [&](const std::string &v) { c.jobs = int(parseInteger(v, 1, 1024)); })
      .option("--queue", "redis://HOST:PORT/QUEUE",
              "submit the candidates (with their tasks' files) to the Redis work queue through\n"
              "cudaperf-eval --submit instead of evaluating here; workers: cudaperf-eval --worker URL\n"
              "(docs/eval-serve.md). Of --eval-arg only --configs and --counters travel",
              [&](const std::string &v) {
                if (v.rfind("redis://", 0) != 0)
                  throw support::SupportError("--queue: expected redis://HOST:PORT/QUEUE, got '" + v.substr(0, 100) + "'");
                c.queueUrl = v;
              })
      .option("--queue-wait", "S", "with --queue: give up when results are missing after S seconds (3600)",
              [&](const std::string &v) { c.queueWait = support::parseNumber(v, 1, 1e7); })
      .option("--eval-arg", "ARG", "passed on to cudaperf-eval, repeatable (--eval-arg=--configs=small)",
              [&](const std::string &v) { c.evalArgs.push_back(v); })
      .option("--devices", "LIST", "GPUs cudaperf-eval spreads the candidates over: all (its default) or 0,1,...",
              [&](const std::string &v) {
                c.evalArgs.push_back("--devices");
                c.evalArgs.push_back(v);
              })
      .epilog("exit codes: 0 written; 1 the evaluator or the output failed; 2 bad usage; 3 bad suite or\n"
              "task; 4 bad candidate directory; 5 bad result file");
  return p;
}

std::string defaultEvaluator(const char *argv0) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  fs::path self = n > 0 ? fs::path(std::string(buf, size_t(n))) : fs::path(argv0);
  fs::path beside = self.parent_path() / "cudaperf-eval";
  return fs::exists(beside) ? beside.string() : "cudaperf-eval";
}

void writeFile(const fs::path &path, const std::string &text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out)
    throw BenchError(BenchError::Kind::Run, path.string() + ": cannot be written");
}

int exitCodeFor(BenchError::Kind kind) {
  switch (kind) {
  case BenchError::Kind::Usage: return kExitUsage;
  case BenchError::Kind::Suite: return kExitSuite;
  case BenchError::Kind::Candidates: return kExitCandidates;
  case BenchError::Kind::Results: return kExitResults;
  case BenchError::Kind::Run: return kExitRun;
  }
  return kExitRun;
}

} // namespace

int main(int argc, char **argv) {
  CommandLine cl;
  support::ArgParser args = benchArgs(cl);
  try {
    support::ParsedArgs parsed = args.parse(argc, argv);
    if (parsed.helpRequested) {
      std::cout << args.help();
      return kExitOk;
    }
    if (!parsed.positional.empty())
      throw support::SupportError("unexpected argument '" + parsed.positional[0] + "'");
    if (cl.useImpls && !cl.candidatesDir.empty())
      throw support::SupportError("--impls and --candidates both name the candidates; give one");
    if (cl.resultsPath.empty() && (cl.suitePath.empty() || (cl.candidatesDir.empty() && !cl.useImpls)))
      throw support::SupportError("give --suite and --candidates DIR or --impls (evaluate), or --results (score "
                                  "existing results)");
  } catch (const support::SupportError &e) {
    std::cerr << "cudaperf-bench: " << e.what() << "\n" << args.usageHint();
    return kExitUsage;
  }
  std::string &suitePath = cl.suitePath, &candidatesDir = cl.candidatesDir, &resultsPath = cl.resultsPath,
              &outDir = cl.outDir, &evalPath = cl.evalPath, &torchTimingsPath = cl.torchTimingsPath;
  ScoreInputs &inputs = cl.inputs;

  try {
    Suite suite;
    if (!suitePath.empty())
      suite = loadSuite(suitePath, cl.suiteOptions);
    if (!resultsPath.empty()) {
      inputs.results = readEvalResults(resultsPath);
      inputs.resultsPath = fs::absolute(resultsPath).string();
      if (suitePath.empty()) {
        std::vector<std::string> dirs;
        for (const EvalResult &r : inputs.results)
          if (!r.taskDir.empty())
            dirs.push_back(r.taskDir);
        if (dirs.empty())
          throw BenchError(BenchError::Kind::Results, resultsPath + ": no result names its task_dir; give --suite");
        suite = suiteFromTaskDirs(dirs);
      }
    }
    if (!torchTimingsPath.empty())
      inputs.torchTimings = readTorchTimingsFile(torchTimingsPath);
    if (outDir.empty())
      outDir = "bench-" + suite.name;
    fs::create_directories(outDir);
    std::cerr << "cudaperf-bench: suite " << suite.name << ": " << suite.presentCount() << " of " << suite.tasks.size()
              << " tasks present\n";

    if (!candidatesDir.empty() || cl.useImpls) {
      CandidateOptions co;
      co.samples = inputs.samples;
      co.turns = inputs.turns;
      inputs.candidates = cl.useImpls ? implCandidates(suite) : scanCandidates(candidatesDir, suite, co);
      std::cerr << "cudaperf-bench: " << inputs.candidates->files.size() << " candidate files, up to "
                << inputs.candidates->samples << " sample(s) and " << inputs.candidates->turns << " turn(s) per task\n";
    }
    if (resultsPath.empty()) {
      std::string results = (fs::path(outDir) / "results.jsonl").string();
      std::string eval = evalPath.empty() ? defaultEvaluator(argv[0]) : evalPath;
      std::cerr << "cudaperf-bench: evaluating with " << eval << " (results in " << results << ")\n";
      inputs.evalCommand = cl.queueUrl.empty()
                               ? runEvaluator(eval, *inputs.candidates, suite, (fs::path(outDir) / "work").string(),
                                              results, cl.jobs, cl.evalArgs)
                               : cudaperf::benchtool::runThroughQueue(eval, {cl.queueUrl, cl.queueWait, cl.evalArgs}, *inputs.candidates, suite, (fs::path(outDir) / "work").string(),
                                                 results);
      inputs.results = readEvalResults(results);
      inputs.resultsPath = fs::absolute(results).string();
    }
    inputs.suite = &suite;
    BenchReport report = scoreBench(std::move(inputs));
    writeFile(fs::path(outDir) / "bench.json", support::writeJson(benchJson(report), 2) + "\n");
    std::string md = benchMarkdown(report);
    writeFile(fs::path(outDir) / "bench.md", md);
    writeFile(fs::path(outDir) / "fast_p.svg", fastPCurveSvg(report));
    writeFile(fs::path(outDir) / "speedups.svg", speedupHistogramSvg(report));
    // The headline tables on stdout; everything else is in the files.
    size_t start = md.find("## Correctness"), end = md.find("## Outcomes");
    std::cout << md.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::cerr << "cudaperf-bench: wrote " << (fs::path(outDir) / "bench.{json,md}").string() << ", fast_p.svg, speedups.svg\n";
  } catch (const BenchError &e) {
    std::cerr << "cudaperf-bench: " << e.what() << "\n";
    return exitCodeFor(e.kind);
  } catch (const fs::filesystem_error &e) {
    std::cerr << "cudaperf-bench: " << e.what() << "\n";
    return kExitRun;
  } catch (const std::exception &e) { // a corrupt document read here (SupportError) and the rest, by kind
    return support::reportError("cudaperf-bench", e);
  }
  return kExitOk;
}
