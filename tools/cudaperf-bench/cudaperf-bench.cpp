// cudaperf-bench: scores a model's candidates over a suite with the figures the field reports
// (correctness, fast_p against the baseline, PyTorch eager and torch.compile, pass@k, fast_p@k,
// per-turn figures, bootstrap intervals); docs/bench.md.
#include "cudaperf/Bench/Bench.h"
#include "cudaperf/Bench/BenchError.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

using namespace cudaperf::bench;
namespace fs = std::filesystem;

namespace {

// Exit codes (docs/bench.md).
constexpr int kExitOk = 0;
constexpr int kExitRun = 1;        // the evaluator could not run, or output could not be written
constexpr int kExitUsage = 2;      // bad command line
constexpr int kExitSuite = 3;      // the suite, or a task it names
constexpr int kExitCandidates = 4; // the candidate directory
constexpr int kExitResults = 5;    // a result file

const char *kUsage =
    "usage: cudaperf-bench --suite SUITE.json --candidates DIR [--samples K] [--turns T] [--out DIR] [options]\n"
    "       cudaperf-bench --results RESULTS.jsonl [--suite SUITE.json] [--candidates DIR] [--out DIR] [options]\n"
    "\n"
    "Evaluates every candidate with cudaperf-eval (or, with --results, scores results already made, without a\n"
    "GPU) and writes OUT/bench.json, OUT/bench.md, OUT/fast_p.svg and OUT/speedups.svg (docs/bench.md).\n"
    "Candidates are named by task: DIR/<task>.cu, DIR/<task>/<sample>.cu or DIR/<task>/<sample>/turn<t>.cu.\n"
    "\n"
    "options:\n"
    "  --impls               candidates are each task's own impls/*.cu (sample = file name), not a directory\n"
    "  --samples K           K samples per task, named 0..K-1; a missing one counts as a failure\n"
    "  --turns T             use refinement turns 1..T only\n"
    "  --out DIR             output directory (default bench-<suite name>)\n"
    "  --root DIR            the suite's task root instead of its \"root\" (a dataset directory for tasks_from)\n"
    "  --allow-missing-tasks report tasks the suite lists but that are absent (refused imports) instead of failing\n"
    "  --p LIST              fast_p thresholds (default 0,1,1.2,1.5,2)\n"
    "  --k LIST              pass@k and fast_p@k values (default 1,2,4,... up to K)\n"
    "  --resamples N         bootstrap resamples over tasks (default 1000; 0: no intervals)\n"
    "  --seed N              bootstrap seed (default 0)\n"
    "  --confidence X        interval coverage (default 0.95)\n"
    "  --torch-timings FILE  torch.compile timings (JSON Lines of cudaperf-torch-timing/1, one per task) instead\n"
    "                        of each task's exported/torch-timing.json (for stored runs)\n"
    "  --eval PATH           cudaperf-eval to run (default: beside cudaperf-bench, else on PATH)\n"
    "  --jobs N              parallel builds in cudaperf-eval (default 8)\n"
    "  --eval-arg ARG        passed on to cudaperf-eval, repeatable (--eval-arg --configs=small ...)\n"
    "\n"
    "exit status: 0 written; 1 the evaluator or the output failed; 2 bad usage; 3 bad suite or task;\n"
    "4 bad candidate directory; 5 bad result file\n";

[[noreturn]] void usageError(const std::string &msg) {
  std::cerr << "cudaperf-bench: " << msg << "\n\n" << kUsage;
  std::exit(kExitUsage);
}

std::vector<double> numberList(const std::string &text, const std::string &option) {
  std::vector<double> values;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    char *end = nullptr;
    double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end || v < 0)
      usageError("bad value \"" + item + "\" in " + option + " " + text);
    values.push_back(v);
  }
  if (values.empty())
    usageError(option + " needs a comma-separated list");
  return values;
}

long wholeNumber(const std::string &text, const std::string &option, long min) {
  char *end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || v < min)
    usageError("bad value for " + option + ": " + text + " (a whole number >= " + std::to_string(min) + ")");
  return v;
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
  std::string suitePath, candidatesDir, resultsPath, outDir, evalPath, torchTimingsPath;
  SuiteOptions suiteOptions;
  ScoreInputs inputs;
  int jobs = 8;
  bool useImpls = false;
  std::vector<std::string> evalArgs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], inlineValue;
    bool hasInline = false;
    if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {
      inlineValue = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
      hasInline = true;
    }
    auto value = [&]() -> std::string {
      if (hasInline)
        return inlineValue;
      if (i + 1 >= argc)
        usageError("missing value for " + a);
      return argv[++i];
    };
    if (a == "-h" || a == "--help") { std::cout << kUsage; return kExitOk; }
    else if (a == "--suite") suitePath = value();
    else if (a == "--candidates") candidatesDir = value();
    else if (a == "--impls") useImpls = true;
    else if (a == "--results") resultsPath = value();
    else if (a == "--out" || a == "-o") outDir = value();
    else if (a == "--samples") inputs.samples = int(wholeNumber(value(), a, 1));
    else if (a == "--turns") inputs.turns = int(wholeNumber(value(), a, 1));
    else if (a == "--root") suiteOptions.rootOverride = value();
    else if (a == "--allow-missing-tasks") suiteOptions.allowMissing = true;
    else if (a == "--p") inputs.options.pValues = numberList(value(), a);
    else if (a == "--k") {
      inputs.options.kValues.clear();
      for (double k : numberList(value(), a)) {
        if (k < 1 || k != double(long(k)))
          usageError("--k values are whole numbers >= 1");
        inputs.options.kValues.push_back(int(k));
      }
    }
    else if (a == "--resamples") inputs.options.resamples = int(wholeNumber(value(), a, 0));
    else if (a == "--seed") inputs.options.seed = uint64_t(wholeNumber(value(), a, 0));
    else if (a == "--confidence") {
      std::string v = value();
      char *end = nullptr;
      double c = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(c > 0 && c < 1))
        usageError("--confidence is a fraction between 0 and 1, not " + v);
      inputs.options.confidence = c;
    }
    else if (a == "--eval") evalPath = value();
    else if (a == "--torch-timings") torchTimingsPath = value();
    else if (a == "--jobs" || a == "-j") jobs = int(wholeNumber(value(), a, 1));
    else if (a == "--eval-arg") evalArgs.push_back(value());
    else usageError("unknown option " + a);
  }
  if (useImpls && !candidatesDir.empty())
    usageError("--impls and --candidates both name the candidates; give one");
  if (resultsPath.empty() && (suitePath.empty() || (candidatesDir.empty() && !useImpls)))
    usageError("give --suite and --candidates DIR or --impls (evaluate), or --results (score existing results)");

  try {
    Suite suite;
    if (!suitePath.empty())
      suite = loadSuite(suitePath, suiteOptions);
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

    if (!candidatesDir.empty() || useImpls) {
      CandidateOptions co;
      co.samples = inputs.samples;
      co.turns = inputs.turns;
      inputs.candidates = useImpls ? implCandidates(suite) : scanCandidates(candidatesDir, suite, co);
      std::cerr << "cudaperf-bench: " << inputs.candidates->files.size() << " candidate files, up to "
                << inputs.candidates->samples << " sample(s) and " << inputs.candidates->turns << " turn(s) per task\n";
    }
    if (resultsPath.empty()) {
      std::string results = (fs::path(outDir) / "results.jsonl").string();
      std::string eval = evalPath.empty() ? defaultEvaluator(argv[0]) : evalPath;
      std::cerr << "cudaperf-bench: evaluating with " << eval << " (results in " << results << ")\n";
      inputs.evalCommand = runEvaluator(eval, *inputs.candidates, suite, (fs::path(outDir) / "work").string(),
                                        results, jobs, evalArgs);
      inputs.results = readEvalResults(results);
      inputs.resultsPath = fs::absolute(results).string();
    }
    inputs.suite = &suite;
    BenchReport report = scoreBench(std::move(inputs));
    writeFile(fs::path(outDir) / "bench.json", benchJson(report).dump(2) + "\n");
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
  }
  return kExitOk;
}
