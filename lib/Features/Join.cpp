#include "cudaperf/Features/Join.h"

#include <algorithm>

namespace cudaperf::features {

namespace {

// Pairs (static index, measured index) of a longest common subsequence of the two name lists;
// past this many cells the alignment is greedy (first match ahead) to bound time and memory.
constexpr size_t kMaxAlignmentCells = 4'000'000;

std::vector<std::pair<size_t, size_t>> alignByName(const std::vector<std::string> &a,
                                                   const std::vector<std::string> &b) {
  std::vector<std::pair<size_t, size_t>> pairs;
  size_t n = a.size(), m = b.size();
  if ((n + 1) * (m + 1) > kMaxAlignmentCells) {
    size_t j = 0;
    for (size_t i = 0; i < n && j < m; ++i)
      for (size_t k = j; k < m; ++k)
        if (a[i] == b[k]) {
          pairs.emplace_back(i, k);
          j = k + 1;
          break;
        }
    return pairs;
  }
  // lcs[i][j]: length of the LCS of a[i..] and b[j..].
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (a[i] == b[j]) {
      pairs.emplace_back(i, j);
      ++i, ++j;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
  return pairs;
}

std::string dimText(const std::optional<Dim3> &d) { return d ? d->text() : "unknown"; }

void compareConfigurations(const LaunchReport &predicted, const MeasuredLaunch &measured, JoinedLaunch &out) {
  auto differs = [&](const char *what, const std::string &p, const std::string &m) {
    out.mismatches.push_back(std::string(what) + " " + p + " predicted, " + m + " measured");
  };
  if (measured.grid && predicted.grid != measured.grid)
    differs("grid", dimText(predicted.grid), measured.grid->text());
  if (measured.block && predicted.block != measured.block)
    differs("block", dimText(predicted.block), measured.block->text());
  if (measured.dynamicSmemBytes && predicted.dynamicSmemBytes != measured.dynamicSmemBytes)
    differs("dynamic shared memory",
            predicted.dynamicSmemBytes ? std::to_string(*predicted.dynamicSmemBytes) + " B" : "unknown",
            std::to_string(*measured.dynamicSmemBytes) + " B");
}

} // namespace

JoinReport joinLaunches(const AnalysisDocument &analysis, const ConfigurationAnalysis &predicted,
                        const EvalConfiguration *measured) {
  JoinReport report;
  report.staticLaunches = int(predicted.launches.size());
  for (const LaunchReport &l : predicted.launches) {
    JoinedLaunch j;
    j.staticIndex = l.index;
    j.kernel = l.mangledName;
    report.launches.push_back(std::move(j));
  }

  // The measured sequence: the recorded launches, with their counters attached; else the counters.
  std::vector<MeasuredSide> sequence;
  const CountersSection *counters =
      measured && measured->counters && measured->counters->available ? &*measured->counters : nullptr;
  if (measured && measured->launches) {
    for (size_t i = 0; i < measured->launches->size(); ++i)
      sequence.push_back({int(i), (*measured->launches)[i].kernel, &(*measured->launches)[i], nullptr});
    report.measuredSource = counters ? "launches+counters" : "launches";
    if (counters)
      for (const MeasuredKernel &k : counters->kernels) {
        if (k.launch < int(sequence.size()) && sequence[size_t(k.launch)].kernel == k.name)
          sequence[size_t(k.launch)].counters = &k;
        else {
          UnjoinedMeasured u;
          u.measured.order = k.launch;
          u.measured.kernel = k.name;
          u.measured.counters = &k;
          u.reason = "counters of launch " + std::to_string(k.launch) + " (" + k.name +
                     ") do not match the recorded launch at that position";
          report.unjoinedMeasured.push_back(std::move(u));
        }
      }
  } else if (counters) {
    for (size_t i = 0; i < counters->kernels.size(); ++i)
      sequence.push_back({int(i), counters->kernels[i].name, nullptr, &counters->kernels[i]});
    report.measuredSource = "counters";
  } else {
    report.measuredSource = !measured ? "no measurement of this configuration"
                            : measured->counters ? "counters not available: " + measured->counters->reason
                                                 : "no launch list and no counters in the eval result";
    return report;
  }
  report.measuredAvailable = true;
  report.measuredLaunches = int(sequence.size());

  std::vector<std::string> staticNames, measuredNames;
  for (const LaunchReport &l : predicted.launches)
    staticNames.push_back(l.mangledName);
  for (const MeasuredSide &m : sequence)
    measuredNames.push_back(m.kernel);
  std::vector<bool> staticJoined(staticNames.size()), measuredJoined(sequence.size());
  for (auto [i, j] : alignByName(staticNames, measuredNames)) {
    JoinedLaunch &out = report.launches[i];
    out.measured = sequence[j];
    if (sequence[j].launch)
      compareConfigurations(predicted.launches[i], *sequence[j].launch, out);
    if (!out.mismatches.empty())
      ++report.configMismatches;
    staticJoined[i] = measuredJoined[j] = true;
    ++report.joined;
  }

  for (size_t j = 0; j < sequence.size(); ++j) {
    if (measuredJoined[j])
      continue;
    const std::string &name = sequence[j].kernel;
    std::string reason;
    if (!analysis.knowsKernel(name))
      reason = "not a kernel of the candidate's file: launched by a library (cuBLAS, CUB, ...) or by code the "
               "analyzer does not see";
    else if (!predicted.entryFound)
      reason = "the analyzer did not find the entry point" + (predicted.reason.empty() ? "" : ": " + predicted.reason);
    else if (!predicted.launchesComplete)
      reason = "the analyzer's evaluation of the entry point stopped early" +
               (predicted.reason.empty() ? "" : " (" + predicted.reason + ")");
    else
      reason = "a launch the analyzer did not find (the number or order of launches differs)";
    UnjoinedMeasured u;
    u.measured = sequence[j];
    u.reason = reason;
    report.unjoinedMeasured.push_back(std::move(u));
  }
  for (size_t i = 0; i < staticNames.size(); ++i) {
    if (staticJoined[i])
      continue;
    std::string reason;
    bool measuredElsewhere = std::find(measuredNames.begin(), measuredNames.end(), staticNames[i]) != measuredNames.end();
    const LaunchReport &l = predicted.launches[i];
    if (staticNames[i].empty())
      reason = "the analyzer does not know which kernel this launch runs" +
               (l.unresolved.empty() ? "" : " (" + l.unresolved.front().reason + ")");
    else if (!l.launchErrors.empty())
      reason = "the launch fails before the kernel runs (" + l.launchErrors.front() + ")";
    else if (measured->launches && measured->launchesTruncated && i >= measured->launches->size())
      reason = "not recorded: the worker's launch list stops after " + std::to_string(measured->launches->size()) +
               " launches";
    else if (!measured->launches && counters->kernelsNotProfiled > 0)
      reason = "not profiled: the counter pass profiled " + std::to_string(sequence.size()) + " launches and left " +
               std::to_string(counters->kernelsNotProfiled) + " out";
    else if (measuredElsewhere)
      reason = "order mismatch: the GPU ran this kernel, but not at this point of the launch sequence";
    else
      reason = "the GPU did not run this launch (the analyzer predicts a launch the candidate did not make)";
    report.unjoinedStatic.push_back({int(i), staticNames[i], reason});
  }
  return report;
}

support::Json JoinReport::toJson() const {
  using support::Json;
  Json j = Json::object();
  j["complete"] = complete();
  j["measured"] = measuredSource;
  j["static_launches"] = staticLaunches;
  j["measured_launches"] = measuredLaunches;
  j["joined"] = joined;
  j["config_mismatches"] = configMismatches;
  Json us = Json::array();
  for (const UnjoinedStatic &u : unjoinedStatic)
    us.push_back(Json::object({{"index", u.staticIndex}, {"kernel", u.kernel}, {"reason", u.reason}}));
  j["unjoined_static"] = std::move(us);
  Json um = Json::array();
  for (const UnjoinedMeasured &u : unjoinedMeasured)
    um.push_back(Json::object({{"order", u.measured.order}, {"kernel", u.measured.kernel}, {"reason", u.reason}}));
  j["unjoined_measured"] = std::move(um);
  Json mm = Json::array();
  for (const JoinedLaunch &l : launches)
    for (const std::string &m : l.mismatches)
      mm.push_back(Json::object({{"index", l.staticIndex}, {"kernel", l.kernel}, {"what", m}}));
  j["mismatches"] = std::move(mm);
  return j;
}

} // namespace cudaperf::features
