// cudaperf-features: a candidate's cudaperf-features/1 vectors at each configuration of its task
// (docs/features.md): runs `cudaperf-analyze --task` (or reads --analysis), joins the eval result
// when --result is given, prints one JSON Lines record per candidate × configuration.
#include "cudaperf/Features/Features.h"
#include "cudaperf/Features/FeaturesError.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Error.h"

#include <fstream>
#include <iostream>

using namespace cudaperf;
using namespace cudaperf::features;

namespace {

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitIncompleteJoin = 3;

} // namespace

int main(int argc, char **argv) {
  FeatureRequest request;
  std::string outputPath;
  bool requireCompleteJoin = false, listFeatures = false, summary = false;
  support::ArgParser args(
      "cudaperf-features", {"TASK_DIR CANDIDATE.cu [options] [-- ANALYZER_FLAGS]", "--list-features"},
      "Prints the cudaperf-features/1 vectors (docs/features.md) of a candidate at each configuration of\n"
      "its task, one JSON Lines record per configuration: the configuration's features and each launch's.\n"
      "The launches come from `cudaperf-analyze --task`; with --result the measured side is joined in.");
  args.option("--config", "NAMES|all", "configurations of the task, by name (A,B) or all (default)", request.configuration)
      .option("--result", "EVAL.json", "the candidate's cudaperf-eval result (a JSON Lines file may hold many;\n"
                                       "the one whose candidate_sha256 matches CANDIDATE.cu is used)",
              request.resultPath)
      .option("--analysis", "ANALYSIS.json", "a `cudaperf-analyze --task` document to read instead of running it",
              request.analysisPath)
      .option("--analyzer", "PATH", "cudaperf-analyze to run (default: beside this program, then PATH)",
              request.analyzerPath)
      .option("--save-analysis", "FILE", "also write the analyzer's document here, as it printed it (for a later\n"
                                         "--analysis; not with --analysis)",
              request.saveAnalysisPath)
      .option("--analyzer-timeout", "S", "kill the analyzer after S seconds (default 600)",
              [&](const std::string &v) { request.analyzerTimeoutSeconds = support::parseNumber(v, 1); })
      .option("--output,-o", "FILE", "write the records here instead of stdout", outputPath)
      .flag("--require-complete-join", "exit 3 when a configuration's launches do not all join measured kernels",
            requireCompleteJoin)
      .flag("--summary", "one line per configuration on stderr", summary)
      .flag("--list-features", "print the feature tables (Markdown) and exit", listFeatures)
      .epilog("exit codes: 0 records written, 1 the analysis or a document failed (the message says which\n"
              "and where), 2 bad usage, 3 --require-complete-join and a join is incomplete");
  std::vector<std::string> positional = args.parseOrExit(argc, argv, kExitUsage).positional;
  if (listFeatures) {
    std::cout << featureTablesMarkdown();
    return kExitOk;
  }
  // Everything after "--" goes to the analyzer; the parser hands it over as positionals, after ours.
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--") {
      request.analyzerFlags.assign(argv + i + 1, argv + argc);
      positional.resize(positional.size() - request.analyzerFlags.size());
      break;
    }
  if (positional.size() != 2)
    args.usageError("expected TASK_DIR and CANDIDATE.cu", kExitUsage);
  if (!request.saveAnalysisPath.empty() && !request.analysisPath.empty())
    args.usageError("--save-analysis saves what the analyzer prints; with --analysis it does not run", kExitUsage);
  request.taskDir = positional[0];
  request.candidatePath = positional[1];

  std::ofstream file;
  if (!outputPath.empty()) {
    file.open(outputPath, std::ios::trunc);
    if (!file) {
      std::cerr << "cudaperf-features: cannot write " << outputPath << "\n";
      return kExitFailed;
    }
  }
  std::ostream &out = outputPath.empty() ? std::cout : file;
  try {
    std::unique_ptr<FeatureSet> set = computeFeatures(request);
    int incomplete = 0;
    for (const ConfigurationRecord &r : set->records()) {
      out << support::writeJson(set->recordJson(r)) << "\n";
      incomplete += r.join.complete() ? 0 : 1;
      if (summary)
        std::cerr << request.candidatePath << " " << r.analysis->name << ": " << r.analysis->launches.size()
                  << " launches, join " << (r.join.complete() ? "complete" : "incomplete") << " ("
                  << r.join.joined << " joined; " << r.join.measuredSource << ")\n";
    }
    out.flush();
    if (!out) {
      std::cerr << "cudaperf-features: writing the records failed\n";
      return kExitFailed;
    }
    if (requireCompleteJoin && incomplete > 0) {
      std::cerr << "cudaperf-features: " << incomplete << " configuration(s) with an incomplete join\n";
      return kExitIncompleteJoin;
    }
  } catch (const std::exception &e) { // FeaturesError, a corrupt document (SupportError): 1 by kind
    return support::reportError("cudaperf-features", e);
  }
  return kExitOk;
}
