// cudaperf-train repair-examples: what SFT's repair examples are made of (docs/training.md, "Repair
// examples"): per task the broken answer, nvcc's predicted log and the feedback; with --every, the
// eligible mutations themselves (for checking them against nvcc: test/learn/repair-nvcc-test.sh).
// No model: it reads the dataset's tasks and implementations. Built where lib/Reward is (CUDAPERF_HAVE_RL).
#ifdef CUDAPERF_HAVE_RL
#include "cudaperf/Learn/Manifest.h"
#include "cudaperf/Learn/Prompt.h"
#include "cudaperf/Learn/RepairExamples.h"
#include "cudaperf/Learn/ToolMain.h"
#include "cudaperf/Support/ArgParser.h"
#include "cudaperf/Support/Json.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace cudaperf::learn {

namespace {

namespace fs = std::filesystem;
using ordered_json = support::Json;
const char *kProgram = "cudaperf-train";

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path.string() + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

int runRepairExamples(const std::vector<std::string> &argv) {
  std::string dataset, out, splitList = "train,val", kindList = "c,pytorch";
  uint64_t seed = 0;
  int64_t every = 0;
  support::ArgParser p(std::string(kProgram) + " repair-examples", {"--dataset DIR --out FILE [options]"},
                       "Writes, per task, the earlier answer of the repair example `sft` builds (one of the task's "
                       "implementations broken so that nvcc rejects it), the log nvcc prints for it in the "
                       "evaluator's build and the feedback RL gives that, as JSON Lines. Nothing is compiled.");
  p.option("--dataset", "DIR", "the generated dataset (manifest.jsonl)", dataset);
  p.option("--out", "FILE", "JSON Lines output", out);
  p.option("--splits", "LIST", "splits (default train,val: those sft uses)", splitList);
  p.option("--kinds", "LIST", "task kinds: c, pytorch (default both)", kindList);
  p.option("--seed", "N", "as sft's --seed (default 0)", [&](const std::string &v) { seed = support::parseUnsigned(v); });
  p.option("--every", "N",
           "instead of the chosen example, up to N mutations of each kind per implementation, spread over the "
           "eligible ones",
           [&](const std::string &v) { every = support::parseInteger(v, 1, 1 << 20); });
  if (p.parse(argv).helpRequested) return std::cout << p.help(), kExitOk;
  if (dataset.empty() || out.empty()) throw support::UsageError("--dataset and --out are required");
  std::vector<ManifestTask> manifest = readManifest(dataset);
  std::set<std::string> splits, kinds;
  for (const std::string &s : learn::splitList(splitList)) splits.insert(s);
  for (const std::string &k : learn::splitList(kindList)) kinds.insert(k);
  std::ofstream file(out);
  if (!file) throw ModelError(out + ": cannot write");
  std::map<std::string, int64_t> counts;
  int64_t tasks = 0, without = 0;
  for (const ManifestTask &t : manifest) {
    if (!splits.count(t.split) || (!kinds.empty() && !kinds.count(t.kind))) continue;
    PolicyTask task = loadPolicyTask(t.dir);
    std::vector<std::string> sources;
    for (const std::string &f : t.implementations) sources.push_back(readFile(fs::path(t.dir) / f));
    auto write = [&](size_t implementation, const BrokenAnswer &b) {
      ++counts[repairMutationName(b.mutation)];
      ordered_json line = {{"task", t.name}, {"task_dir", t.dir}, {"split", t.split},
                           {"implementation", t.implementations[implementation]},
                           {"mutation", repairMutationName(b.mutation)}, {"line", b.line}};
      if (b.mutation == RepairMutation::Truncation) line["open_blocks"] = b.openBlocks;
      else line["identifier"] = b.identifier, line["replaced"] = b.replaced;
      line["source"] = b.source;
      line["compile_log"] = b.compileLog;
      line["feedback"] = b.feedback;
      file << support::writeJson(line) << "\n";
    };
    ++tasks;
    if (every == 0) {
      if (std::optional<RepairChoice> r = chooseRepair(task.task, sources, seed)) write(r->implementation, r->broken);
      else ++without;
      continue;
    }
    for (size_t i = 0; i < sources.size(); ++i) {
      std::vector<std::string> others;
      for (size_t j = 0; j < sources.size(); ++j)
        if (j != i) others.push_back(sources[j]);
      for (std::vector<BrokenAnswer> found :
           {truncations(task.task, sources[i]), undeclaredIdentifiers(task.task, sources[i], others)}) {
        size_t n = std::min(found.size(), size_t(every));
        for (size_t k = 0; k < n; ++k) {
          BrokenAnswer &b = found[k * found.size() / n];
          b.feedback = repairFeedback(task.task, b.compileLog);
          write(i, b);
        }
      }
    }
  }
  if (!file.flush()) throw ModelError(out + ": cannot write");
  std::cerr << kProgram << ": " << tasks << " tasks: " << counts["truncation"] << " truncations, "
            << counts["undeclared_identifier"] << " undeclared identifiers";
  if (every == 0) std::cerr << ", " << without << " tasks without a repair example";
  std::cerr << "\n";
  return kExitOk;
}

} // namespace cudaperf::learn

#endif // CUDAPERF_HAVE_RL
