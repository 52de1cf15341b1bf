// bench.md: the figures as tables for people (and for docs/benchmarks.md).
#include "cudaperf/Bench/Report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace cudaperf::bench {

namespace {

std::string fixed(double v, int digits) {
  if (!std::isfinite(v))
    return "–";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// "0.42 [0.30, 0.55]"
std::string withInterval(const Aggregate &a, const std::string &key, int digits) {
  auto it = a.figures.find(key);
  if (it == a.figures.end())
    return "–";
  const Estimate &e = it->second;
  std::string s = fixed(e.value, digits);
  if (std::isfinite(e.ci.low) && std::isfinite(e.value))
    s += " [" + fixed(e.ci.low, digits) + ", " + fixed(e.ci.high, digits) + "]";
  return s;
}

std::string plain(const Aggregate &a, const std::string &key, int digits) {
  auto it = a.figures.find(key);
  return it == a.figures.end() ? "–" : fixed(it->second.value, digits);
}

std::string speedupCell(const CandidateScore *best, Reference ref) {
  if (!best || !best->speedups.count(ref))
    return "–";
  const Speedup &s = best->speedups.at(ref);
  return fixed(s.value, 2) + "× ±" + fixed(100 * s.margin, 0) + "%";
}

} // namespace

std::string benchMarkdown(const BenchReport &r) {
  const Aggregate &a = r.perTurn.back();
  std::ostringstream md;
  md << "# cudaperf-bench: suite " << r.suite->name << "\n\n";
  md << "- tasks: " << r.suite->presentCount() << " of " << r.suite->tasks.size() << " in the suite";
  if (r.suite->presentCount() != r.suite->tasks.size())
    md << " (the others are listed under \"Not present\")";
  md << "\n- candidates: " << (r.candidatesDir.empty() ? r.resultsPath : r.candidatesDir) << "; " << r.samples
     << " sample(s) per task, " << r.turns << " turn(s)\n";
  support::Json conv = timingConventions(r);
  std::string gpus;
  for (const auto &g : conv["gpus"])
    gpus += (gpus.empty() ? "" : ", ") + g.get<std::string>();
  md << "- GPU: " << (gpus.empty() ? "–" : gpus) << "; results: " << r.resultsPath << "\n";
  md << "- intervals: " << int(100 * r.options.confidence) << "% percentile bootstrap over tasks, "
     << r.options.resamples << " resamples, seed " << r.options.seed << "\n";
  md << "- fast_p counts a correct candidate only when its speedup exceeds p by more than the timings' spread "
        "(docs/bench.md); \"strict\" is the plain speedup > p\n\n";

  md << "## Correctness\n\n| figure | value |\n|---|---|\n";
  md << "| correct (pass@1) | " << withInterval(a, "correctness", 3) << " |\n";
  for (int k : a.kValues)
    if (k > 1)
      md << "| pass@" << k << " | " << withInterval(a, "pass@" + std::to_string(k), 3) << " |\n";

  md << "\n## Speedups\n\n| reference | tasks |";
  for (double p : r.options.pValues)
    md << " fast_" << pLabel(p) << " |";
  md << " fast_1 strict | geomean speedup | median speedup |\n|---|---|";
  for (size_t i = 0; i < r.options.pValues.size(); ++i)
    md << "---|";
  md << "---|---|---|\n";
  for (Reference ref : kReferences) {
    std::string n = referenceName(ref);
    if (!a.referenceTasks.count(ref) || a.referenceTasks.at(ref) == 0)
      continue;
    md << "| " << n << " | " << a.referenceTasks.at(ref) << " |";
    for (double p : r.options.pValues)
      md << " " << withInterval(a, n + ".fast_" + pLabel(p), 2) << " |";
    md << " " << plain(a, n + ".fast_1.strict", 2) << " | " << withInterval(a, n + ".geomean_speedup", 2) << " | "
       << withInterval(a, n + ".median_speedup", 2) << " |\n";
  }

  if (a.kValues.size() > 1) {
    md << "\n## fast_p@k (unbiased estimator over the samples)\n\n| reference | p |";
    for (int k : a.kValues)
      md << " @" << k << " |";
    md << "\n|---|---|";
    for (size_t i = 0; i < a.kValues.size(); ++i)
      md << "---|";
    md << "\n";
    for (Reference ref : kReferences) {
      std::string n = referenceName(ref);
      if (!a.referenceTasks.count(ref) || a.referenceTasks.at(ref) == 0)
        continue;
      for (double p : r.options.pValues) {
        if (p <= 0)
          continue;
        md << "| " << n << " | " << pLabel(p) << " |";
        for (int k : a.kValues)
          md << " " << plain(a, n + ".fast_" + pLabel(p) + "@" + std::to_string(k), 3) << " |";
        md << "\n";
      }
    }
  }

  if (r.perTurn.size() > 1) {
    md << "\n## Per turn (best of turns <= t)\n\n| turn | correct |";
    for (Reference ref : kReferences)
      if (a.referenceTasks.count(ref) && a.referenceTasks.at(ref))
        md << " " << referenceName(ref) << " fast_1 | " << referenceName(ref) << " geomean |";
    md << "\n|---|---|";
    for (Reference ref : kReferences)
      if (a.referenceTasks.count(ref) && a.referenceTasks.at(ref))
        md << "---|---|";
    md << "\n";
    for (size_t t = 0; t < r.perTurn.size(); ++t) {
      const Aggregate &at = r.perTurn[t];
      md << "| " << t + 1 << " | " << withInterval(at, "correctness", 3) << " |";
      for (Reference ref : kReferences)
        if (a.referenceTasks.count(ref) && a.referenceTasks.at(ref))
          md << " " << withInterval(at, std::string(referenceName(ref)) + ".fast_1", 2) << " | "
             << plain(at, std::string(referenceName(ref)) + ".geomean_speedup", 2) << " |";
      md << "\n";
    }
  }

  std::map<std::string, int> outcomes;
  for (const CandidateScore &s : r.scores)
    ++outcomes[s.outcome];
  md << "\n## Outcomes (every scored file and missing sample)\n\n| outcome | candidates |\n|---|---|\n";
  for (const auto &[o, n] : outcomes)
    md << "| " << o << " | " << n << " |\n";

  md << "\n## Tasks (best candidate: the correct one fastest against eager for PyTorch tasks, the baseline otherwise)\n\n"
        "| task | kind | candidates | correct | vs baseline | vs eager | vs compile | failures |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (const SuiteTask &t : r.suite->tasks) {
    if (!t.present)
      continue;
    int n = 0, correct = 0;
    const CandidateScore *best = nullptr;
    std::map<std::string, int> failures;
    for (const CandidateScore &s : r.scores) {
      if (s.file.task != t.name)
        continue;
      ++n;
      if (!s.correct) {
        ++failures[s.outcome];
        continue;
      }
      ++correct;
      // Best against the task's headline reference: eager for PyTorch tasks, else the baseline.
      auto first = [&](const CandidateScore &c) {
        for (Reference ref : {Reference::Eager, Reference::Baseline, Reference::Compile})
          if (c.speedups.count(ref))
            return c.speedups.at(ref).value;
        return 0.0;
      };
      if (!best || first(s) > first(*best))
        best = &s;
    }
    std::string fails;
    for (const auto &[o, k] : failures)
      fails += (fails.empty() ? "" : ", ") + o + " " + std::to_string(k);
    md << "| " << t.name << " | " << (t.kind == "pytorch-to-cuda" ? "pytorch" : "c") << " | " << n << " | " << correct
       << " | " << speedupCell(best, Reference::Baseline) << " | " << speedupCell(best, Reference::Eager) << " | "
       << speedupCell(best, Reference::Compile) << " | " << (fails.empty() ? "–" : fails) << " |\n";
  }

  bool anyMissing = false;
  for (const SuiteTask &t : r.suite->tasks)
    if (!t.present) {
      if (!anyMissing)
        md << "\n## Not present (not counted in any figure)\n\n";
      anyMissing = true;
      md << "- " << t.name << ": " << t.missingReason << "\n";
    }
  if (!r.notes.empty()) {
    md << "\n## Notes\n\n";
    for (const std::string &n : r.notes)
      md << "- " << n << "\n";
  }
  md << "\n## Timing conventions\n\n";
  for (const char *part : {"candidate_and_baseline", "eager", "compile"}) {
    md << "- " << part << ":";
    for (const auto &item : conv[part].items())
      md << " " << item.key() << ": " << (item.value().is_string() ? item.value().get<std::string>() : support::writeJson(item.value()))
         << ";";
    md << "\n";
  }
  md << "- tie rule: " << conv["tie_rule"].get<std::string>() << "\n";
  return md.str();
}

} // namespace cudaperf::bench
