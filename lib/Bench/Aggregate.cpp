#include "cudaperf/Bench/Aggregate.h"
#include "cudaperf/Bench/BenchError.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

namespace cudaperf::bench {

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct SampleState {
  bool correct = false;
  std::map<Reference, double> best;
  std::map<Reference, std::vector<char>> faster, fasterStrict;
};

// Every figure on one multiset of tasks (indices into `tasks`, repeats allowed).
std::map<std::string, double> figuresOf(const std::vector<TaskSummary> &tasks, const std::vector<size_t> &idx,
                                        const AggregateOptions &o, const std::vector<int> &kValues) {
  std::map<std::string, double> f;
  double correctness = 0;
  std::vector<double> passSums(kValues.size(), 0);
  for (size_t i : idx) {
    const TaskSummary &t = tasks[i];
    correctness += double(t.correct) / t.n;
    for (size_t k = 0; k < kValues.size(); ++k)
      passSums[k] += passAtK(t.n, t.correct, kValues[k]);
  }
  f["correctness"] = idx.empty() ? kNaN : correctness / double(idx.size());
  for (size_t k = 0; k < kValues.size(); ++k)
    f["pass@" + std::to_string(kValues[k])] = idx.empty() ? kNaN : passSums[k] / double(idx.size());

  for (Reference ref : kReferences) {
    std::string r = referenceName(ref);
    size_t count = 0;
    std::vector<double> fast(o.pValues.size(), 0), strict(o.pValues.size(), 0);
    std::vector<std::vector<double>> fastAtK(kValues.size(), std::vector<double>(o.pValues.size(), 0));
    std::vector<double> pooled, best;
    for (size_t i : idx) {
      const TaskSummary &t = tasks[i];
      if (std::find(t.references.begin(), t.references.end(), ref) == t.references.end())
        continue;
      ++count;
      const std::vector<int> &fa = t.faster.at(ref), &st = t.fasterStrict.at(ref);
      for (size_t p = 0; p < o.pValues.size(); ++p) {
        fast[p] += double(fa[p]) / t.n;
        strict[p] += double(st[p]) / t.n;
        for (size_t k = 0; k < kValues.size(); ++k)
          fastAtK[k][p] += passAtK(t.n, fa[p], kValues[k]);
      }
      const std::vector<double> &sp = t.speedups.at(ref);
      pooled.insert(pooled.end(), sp.begin(), sp.end());
      if (!sp.empty())
        best.push_back(*std::max_element(sp.begin(), sp.end()));
    }
    for (size_t p = 0; p < o.pValues.size(); ++p) {
      std::string fp = r + ".fast_" + pLabel(o.pValues[p]);
      f[fp] = count ? fast[p] / double(count) : kNaN;
      f[fp + ".strict"] = count ? strict[p] / double(count) : kNaN;
      for (size_t k = 0; k < kValues.size(); ++k)
        f[fp + "@" + std::to_string(kValues[k])] = count ? fastAtK[k][p] / double(count) : kNaN;
    }
    f[r + ".geomean_speedup"] = geometricMean(pooled);
    f[r + ".median_speedup"] = median(pooled);
    f[r + ".best_geomean_speedup"] = geometricMean(best);
  }
  return f;
}

} // namespace

std::string pLabel(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", p);
  return buf;
}

std::vector<int> defaultKValues(int minSamples) {
  std::vector<int> ks;
  for (int k = 1; k <= minSamples; k *= 2)
    ks.push_back(k);
  if (minSamples >= 1 && ks.back() != minSamples)
    ks.push_back(minSamples);
  return ks;
}

std::vector<TaskSummary> summarizeTasks(const std::vector<CandidateScore> &scores, const Suite &suite,
                                        const std::map<std::string, std::vector<Reference>> &references,
                                        int turn, const std::vector<double> &pValues) {
  // task -> sample -> state after turns <= turn
  std::map<std::string, std::map<std::string, SampleState>> states;
  for (const CandidateScore &s : scores) {
    // Every sample is a slot at every turn; one whose first file is a later turn has failed until then.
    SampleState &st = states[s.file.task][s.file.sample];
    if (s.file.turn > turn || !s.correct)
      continue;
    st.correct = true;
    for (const auto &[ref, sp] : s.speedups) {
      auto it = st.best.find(ref);
      if (it == st.best.end() || sp.value > it->second)
        st.best[ref] = sp.value;
      auto &fa = st.faster[ref], &fs = st.fasterStrict[ref];
      fa.resize(pValues.size(), 0);
      fs.resize(pValues.size(), 0);
      for (size_t p = 0; p < pValues.size(); ++p) {
        fa[p] |= countsAsFaster(sp, pValues[p]);
        fs[p] |= strictlyFaster(sp, pValues[p]);
      }
    }
  }
  std::vector<TaskSummary> out;
  for (const SuiteTask &task : suite.tasks) {
    if (!task.present)
      continue;
    auto it = states.find(task.name);
    if (it == states.end())
      throw BenchError(BenchError::Kind::Results, "task " + task.name + " has no scored candidate (not even a missing slot)");
    TaskSummary t;
    t.task = task.name;
    t.references = references.count(task.name) ? references.at(task.name) : std::vector<Reference>{};
    for (Reference ref : t.references) {
      t.faster[ref].assign(pValues.size(), 0);
      t.fasterStrict[ref].assign(pValues.size(), 0);
      t.speedups[ref];
    }
    for (const auto &[sample, st] : it->second) {
      ++t.n;
      if (!st.correct)
        continue;
      ++t.correct;
      for (Reference ref : t.references) {
        for (size_t p = 0; p < pValues.size(); ++p) {
          // fast_0 is correctness, even where a reference has no timing for this candidate.
          bool fa = pValues[p] <= 0 || (st.faster.count(ref) && st.faster.at(ref)[p]);
          bool fs = pValues[p] <= 0 || (st.fasterStrict.count(ref) && st.fasterStrict.at(ref)[p]);
          t.faster[ref][p] += fa;
          t.fasterStrict[ref][p] += fs;
        }
        if (st.best.count(ref))
          t.speedups[ref].push_back(st.best.at(ref));
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

Aggregate aggregateTasks(const std::vector<TaskSummary> &tasks, const AggregateOptions &o) {
  Aggregate a;
  a.tasks = int(tasks.size());
  if (tasks.empty())
    throw BenchError(BenchError::Kind::Results, "no task to aggregate over");
  int minSamples = std::numeric_limits<int>::max();
  for (const TaskSummary &t : tasks)
    minSamples = std::min(minSamples, t.n);
  if (o.kValues.empty()) {
    a.kValues = defaultKValues(minSamples);
  } else {
    for (int k : o.kValues)
      if (k >= 1 && k <= minSamples)
        a.kValues.push_back(k);
  }
  std::vector<size_t> all(tasks.size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  std::map<std::string, double> point = figuresOf(tasks, all, o, a.kValues);

  // One bootstrap pass computes every figure per draw; the intervals are then read per figure.
  std::map<std::string, std::vector<double>> draws;
  if (o.resamples > 0) {
    for (auto &kv : point)
      draws[kv.first].reserve(size_t(o.resamples));
    forEachBootstrapDraw(tasks.size(), o.resamples, o.seed, [&](const std::vector<size_t> &idx) {
      for (auto &[key, v] : figuresOf(tasks, idx, o, a.kValues))
        if (std::isfinite(v))
          draws[key].push_back(v);
    });
  }
  for (Reference ref : kReferences)
    a.referenceTasks[ref] = int(std::count_if(tasks.begin(), tasks.end(), [&](const TaskSummary &t) {
      return std::find(t.references.begin(), t.references.end(), ref) != t.references.end();
    }));
  for (const auto &[key, value] : point) {
    Estimate e;
    e.value = value;
    e.ci = {kNaN, kNaN};
    auto d = draws.find(key);
    if (d != draws.end() && !d->second.empty()) {
      std::vector<double> v = d->second;
      std::sort(v.begin(), v.end());
      e.ci = {percentileOfSorted(v, (1 - o.confidence) / 2), percentileOfSorted(v, (1 + o.confidence) / 2)};
    }
    size_t dot = key.find('.');
    e.tasks = dot == std::string::npos ? a.tasks : 0;
    if (dot != std::string::npos)
      for (Reference ref : kReferences)
        if (key.compare(0, dot, referenceName(ref)) == 0)
          e.tasks = a.referenceTasks[ref];
    a.figures[key] = e;
  }
  return a;
}

} // namespace cudaperf::bench
