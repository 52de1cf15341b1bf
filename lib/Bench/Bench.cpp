#include "cudaperf/Bench/Bench.h"
#include "cudaperf/Bench/BenchError.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace cudaperf::bench {

namespace fs = std::filesystem;

namespace {

std::string normalized(const std::string &path) { return fs::absolute(path).lexically_normal().string(); }

bool readSource(const std::string &path, std::string &text) {
  std::ifstream in(path);
  if (!in)
    return false;
  std::stringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

} // namespace

BenchReport scoreBench(ScoreInputs in) {
  const Suite &suite = *in.suite;
  BenchReport report;
  report.suite = in.suite;
  report.resultsPath = in.resultsPath;
  report.evalCommand = in.evalCommand;
  report.options = in.options;

  // Results by (task, sample, turn); a later result for the same file replaces an earlier one.
  std::map<std::string, const SuiteTask *> byDir;
  for (const SuiteTask &t : suite.tasks)
    byDir[normalized(t.dir)] = &t;
  using Key = std::tuple<std::string, std::string, int>;
  std::map<Key, const EvalResult *> results;
  std::map<std::string, const EvalResult *> byPath;
  std::set<std::string> otherTasks;
  for (const EvalResult &r : in.results) {
    const SuiteTask *task = r.task.empty() ? nullptr : suite.find(r.task);
    if (!task && !r.taskDir.empty() && byDir.count(normalized(r.taskDir)))
      task = byDir.at(normalized(r.taskDir));
    if (!task) {
      otherTasks.insert(r.task.empty() ? r.taskDir : r.task);
      continue;
    }
    CandidateFile f = candidateFromPath(r.candidate, task->name);
    Key key{task->name, f.sample, f.turn};
    if (results.count(key))
      report.notes.push_back(r.where + ": a second result for " + task->name + " sample " + f.sample + " turn " +
                             std::to_string(f.turn) + " replaces the first");
    results[key] = &r;
    byPath[normalized(r.candidate)] = &r;
  }
  for (const std::string &t : otherTasks)
    report.notes.push_back("results for " + t + ", which suite " + suite.name + " does not have, are not scored");
  if (results.empty())
    throw BenchError(BenchError::Kind::Results, (in.resultsPath.empty() ? std::string("the results") : in.resultsPath) +
                                                    ": no result belongs to a task of suite " + suite.name);

  // The files: those scanned, else one per result.
  std::vector<CandidateFile> files;
  if (in.candidates) {
    files = in.candidates->files;
    report.candidatesDir = in.candidates->dir;
    report.notes.insert(report.notes.end(), in.candidates->notes.begin(), in.candidates->notes.end());
  } else {
    for (const auto &[key, r] : results) {
      CandidateFile f = candidateFromPath(r->candidate, std::get<0>(key));
      if (in.turns > 0 && f.turn > in.turns)
        continue;
      files.push_back(f);
    }
  }

  for (const SuiteTask &t : suite.tasks)
    if (t.kind == "pytorch-to-cuda" && t.present) {
      if (auto given = in.torchTimings.find(t.name); given != in.torchTimings.end()) {
        report.torch[t.name] = given->second;
        continue;
      }
      try {
        report.torch[t.name] = readTorchTimings(t.dir);
      } catch (const BenchError &e) {
        report.notes.push_back(std::string(e.what()) + "; torch.compile figures leave this task out");
        report.torch[t.name] = std::nullopt;
      }
    }
  std::string withoutCompile;
  size_t withoutCount = 0;
  for (const SuiteTask &t : suite.tasks) {
    if (!t.present)
      continue;
    const TorchTimings *torch = report.torch.count(t.name) && report.torch.at(t.name) ? &*report.torch.at(t.name) : nullptr;
    report.references[t.name] = referencesOf(t, torch);
    if (t.kind == "pytorch-to-cuda" && (!torch || torch->compiled.empty())) {
      withoutCompile += (withoutCompile.empty() ? "" : ", ") + t.name;
      ++withoutCount;
    }
  }
  if (withoutCount)
    report.notes.push_back(std::to_string(withoutCount) + " PyTorch task(s) without torch.compile timings "
                           "(exported/torch-timing.json from scripts/torch-baselines.py), so not in the compile "
                           "figures: " + withoutCompile);

  std::map<std::string, std::set<std::string>> samplesOf;
  int maxTurn = 1;
  for (const CandidateFile &f : files) {
    const SuiteTask *task = suite.find(f.task);
    if (!task || !task->present)
      continue;
    samplesOf[f.task].insert(f.sample);
    maxTurn = std::max(maxTurn, f.turn);
    const EvalResult *r = nullptr;
    if (in.candidates) {
      auto it = byPath.find(normalized(f.path));
      r = it != byPath.end() ? it->second : nullptr;
    } else {
      r = results.at(Key{f.task, f.sample, f.turn});
    }
    std::string source;
    bool sourceRead = readSource(f.path, source);
    const TorchTimings *torch = report.torch.count(f.task) && report.torch.at(f.task) ? &*report.torch.at(f.task) : nullptr;
    report.scores.push_back(scoreCandidate(f, r, *task, torch, source, sourceRead));
  }

  // Sample slots that nothing fills are failures: with --samples K every task has K slots, else a
  // task without any candidate has one.
  if (in.samples > 0)
    for (const auto &[task, names] : samplesOf)
      for (const std::string &n : names) {
        bool slot = !n.empty() && n.size() < 10 && std::all_of(n.begin(), n.end(), ::isdigit) &&
                    (n == "0" || n[0] != '0') && std::stoi(n) < in.samples;
        if (!slot)
          throw BenchError(BenchError::Kind::Results, task + ": sample \"" + n + "\" is not one of 0.." +
                                                          std::to_string(in.samples - 1) + " (--samples " +
                                                          std::to_string(in.samples) + ")");
      }
  int samples = in.samples;
  if (samples <= 0)
    for (const auto &[task, names] : samplesOf)
      samples = std::max(samples, int(names.size()));
  for (const SuiteTask &t : suite.tasks) {
    if (!t.present)
      continue;
    const std::set<std::string> &have = samplesOf[t.name];
    if (in.samples > 0) {
      for (int s = 0; s < in.samples; ++s)
        if (!have.count(std::to_string(s)))
          report.scores.push_back(missingCandidate(t.name, std::to_string(s)));
    } else if (have.empty()) {
      report.scores.push_back(missingCandidate(t.name, "0"));
    }
  }
  report.samples = std::max(1, samples);
  report.turns = in.turns > 0 ? in.turns : (in.candidates ? std::max(1, in.candidates->turns) : maxTurn);
  computeAggregates(report);
  report.results = std::move(in.results);
  return report;
}

} // namespace cudaperf::bench
