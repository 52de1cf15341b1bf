// bench.json and the aggregates every writer reads.
#include "cudaperf/Bench/Report.h"

#include <cmath>
#include <set>

namespace cudaperf::bench {

using support::Json;

namespace {

Json numberOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json estimateJson(const Estimate &e) {
  Json j;
  j["value"] = numberOrNull(e.value);
  j["ci"] = Json::array({numberOrNull(e.ci.low), numberOrNull(e.ci.high)});
  j["tasks"] = e.tasks;
  return j;
}

Json aggregateJson(const Aggregate &a) {
  Json j;
  j["tasks"] = a.tasks;
  j["k_values"] = a.kValues;
  Json refs = Json::object();
  for (Reference r : kReferences)
    refs[referenceName(r)] = a.referenceTasks.count(r) ? a.referenceTasks.at(r) : 0;
  j["reference_tasks"] = refs;
  Json figures = Json::object();
  for (const auto &[key, e] : a.figures)
    figures[key] = estimateJson(e);
  j["figures"] = figures;
  return j;
}

} // namespace

void computeAggregates(BenchReport &report) {
  report.perTurn.clear();
  for (int t = 1; t <= std::max(1, report.turns); ++t)
    report.perTurn.push_back(aggregateTasks(
        summarizeTasks(report.scores, *report.suite, report.references, t, report.options.pValues), report.options));
}

Json timingConventions(const BenchReport &report) {
  Json c;
  size_t ok = 0, audited = 0, shared = 0, cachedBaselines = 0;
  std::set<std::string> gpus, versions;
  for (const EvalResult &r : report.results) {
    if (!r.gpu.empty())
      gpus.insert(r.gpu);
    if (!r.evaluatorVersion.empty())
      versions.insert(r.evaluatorVersion);
    shared += r.gpuShared;
    cachedBaselines += r.baselineCached;
    if (!r.ok() || r.configs.empty())
      continue;
    ++ok;
    bool all = true;
    for (const ConfigResult &cr : r.configs)
      all = all && cr.audited;
    audited += all;
  }
  Json worker;
  worker["timed_by"] = "cudaperf-eval worker, candidate and baseline in one process on the same buffers";
  worker["events"] = "CUDA events on the timed stream around each call";
  worker["l2_flushed"] = "a buffer of twice the L2 size written on the stream before every timed call";
  worker["statistic"] = "median of the timed calls (at least --min-runs, until the median settles or the budget ends)";
  worker["streams_awaited"] = "audit call: every stream the entry launched on must be idle when the timed stream is";
  worker["wall_clock_cross_check"] =
      "audit call: the device drain after the timed stream and the host return, against the event span";
  worker["ok_results"] = ok;
  worker["ok_results_audited_in_every_config"] = audited;
  worker["results_with_a_reused_baseline_timing"] = cachedBaselines; // timed by an earlier worker of the task
  c["candidate_and_baseline"] = worker;
  Json eager;
  eager["timed_by"] = "cudaperf-torch-reference (LibTorch, TorchScript interpreter, optimising executor off: no fusion)";
  eager["events"] = "CUDA events around each forward on the current stream";
  eager["l2_flushed"] = "a buffer of twice the L2 size filled before every timed call";
  eager["tf32"] = false;
  c["eager"] = eager;
  Json compiled;
  compiled["timed_by"] = "scripts/torch-baselines.py: torch.compile (Inductor, default mode) in Python";
  size_t with = 0;
  std::set<std::string> torchVersions;
  for (const auto &[task, t] : report.torch)
    if (t && !t->compiled.empty()) {
      ++with;
      torchVersions.insert(t->torchVersion);
    }
  compiled["tasks_with_timings"] = with;
  compiled["torch_versions"] = torchVersions;
  compiled["conventions"] = "events, L2 flushed, warm-up (compilation) excluded, median; the file's own "
                            "\"conventions\" record says more";
  c["compile"] = compiled;
  c["tie_rule"] = "faster than p x a reference only when the speedup exceeds p * (1 + margin), margin = mean over "
                  "configurations of half the two timings' (p90 - p10) / median; strict figures (speedup > p) "
                  "are reported beside";
  c["gpus"] = gpus;
  c["evaluator_versions"] = versions;
  c["results_with_gpu_shared"] = shared;
  return c;
}

Json benchJson(const BenchReport &report) {
  Json doc;
  doc["schema"] = kBenchSchema;
  Json suite;
  suite["name"] = report.suite->name;
  suite["path"] = report.suite->path;
  suite["tasks"] = report.suite->tasks.size();
  suite["present"] = report.suite->presentCount();
  Json missing = Json::array();
  for (const SuiteTask &t : report.suite->tasks)
    if (!t.present)
      missing.push_back({{"task", t.name}, {"reason", t.missingReason}});
  suite["not_present"] = missing;
  doc["suite"] = suite;
  Json cands;
  cands["dir"] = report.candidatesDir;
  cands["results"] = report.resultsPath;
  cands["eval_command"] = report.evalCommand;
  cands["samples"] = report.samples;
  cands["turns"] = report.turns;
  cands["scored"] = report.scores.size();
  doc["candidates"] = cands;
  Json settings;
  settings["p_values"] = report.options.pValues;
  Json boot;
  boot["resamples"] = report.options.resamples;
  boot["seed"] = report.options.seed;
  boot["confidence"] = report.options.confidence;
  boot["method"] = "percentile bootstrap; tasks drawn with replacement (SplitMix64, docs/bench.md)";
  settings["bootstrap"] = boot;
  doc["settings"] = settings;
  doc["timing_conventions"] = timingConventions(report);
  doc["summary"] = aggregateJson(report.perTurn.back());
  Json turns = Json::array();
  for (size_t t = 0; t < report.perTurn.size(); ++t) {
    Json j = aggregateJson(report.perTurn[t]);
    j["turn"] = t + 1;
    turns.push_back(j);
  }
  doc["turns"] = turns;
  std::map<std::string, int> outcomes;
  for (const CandidateScore &s : report.scores)
    ++outcomes[s.outcome];
  doc["outcomes"] = outcomes;

  Json tasks = Json::array();
  for (const SuiteTask &t : report.suite->tasks) {
    if (!t.present)
      continue;
    Json jt;
    jt["task"] = t.name;
    jt["kind"] = t.kind;
    if (!t.source.empty())
      jt["source"] = t.source;
    Json refs = Json::array();
    for (Reference r : report.references.count(t.name) ? report.references.at(t.name) : std::vector<Reference>{})
      refs.push_back(referenceName(r));
    jt["references"] = refs;
    if (auto it = report.torch.find(t.name); it != report.torch.end() && it->second &&
                                             !it->second->compileErrors.empty())
      jt["compile_errors"] = it->second->compileErrors;
    Json cands = Json::array();
    for (const CandidateScore &s : report.scores) {
      if (s.file.task != t.name)
        continue;
      Json c;
      c["sample"] = s.file.sample;
      c["turn"] = s.file.turn;
      c["file"] = s.file.path;
      c["outcome"] = s.outcome;
      c["correct"] = s.correct;
      if (!s.detail.empty())
        c["detail"] = s.detail.substr(0, 400);
      if (!s.libraryCheck.empty())
        c["library_check"] = s.libraryCheck;
      Json sp = Json::object();
      for (const auto &[ref, v] : s.speedups) {
        Json jv;
        jv["value"] = v.value;
        jv["margin"] = v.margin;
        jv["configs"] = v.configs;
        Json faster = Json::array();
        for (double p : report.options.pValues)
          if (p > 0 && countsAsFaster(v, p))
            faster.push_back(p);
        jv["faster_at"] = faster;
        sp[referenceName(ref)] = jv;
      }
      c["speedups"] = sp;
      cands.push_back(c);
    }
    jt["candidates"] = cands;
    tasks.push_back(jt);
  }
  doc["tasks"] = tasks;
  doc["notes"] = report.notes;
  return doc;
}

} // namespace cudaperf::bench
