#include "cudaperf/Features/Features.h"
#include "cudaperf/Features/FeaturesError.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"
#include "cudaperf/Support/Toolkit.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace cudaperf::features {

using support::Json;

namespace {

Json dimJson(const std::optional<Dim3> &d) {
  return d ? Json::array({d->x, d->y, d->z}) : Json(nullptr);
}

Json optionalJson(const std::optional<int64_t> &v) { return v ? Json(*v) : Json(nullptr); }

std::string firstLines(const std::string &text, size_t maxLines) {
  std::string out;
  size_t lines = 0;
  for (char c : text) {
    if (lines >= maxLines)
      break;
    out += c;
    lines += c == '\n';
  }
  while (!out.empty() && out.back() == '\n')
    out.pop_back();
  return out;
}

std::string defaultAnalyzer() {
  std::string beside = support::executableDir() + "/cudaperf-analyze";
  if (access(beside.c_str(), X_OK) == 0)
    return beside;
  return support::findInPath("cudaperf-analyze");
}

} // namespace

FeatureSet::FeatureSet(AnalysisDocument analysis, std::optional<EvalResult> result, const std::string &configuration)
    : analysis_(std::make_unique<AnalysisDocument>(std::move(analysis))),
      result_(result ? std::make_unique<EvalResult>(std::move(*result)) : nullptr) {
  const AnalysisDocument &doc = *analysis_;
  if (!doc.task)
    throw FeaturesError(doc.source + ": not a `cudaperf-analyze --task` document (no \"task\")");
  const EvalResult *res = result_.get();
  const support::RooflinePeaks *peaks = rooflinePeaksFor(res, doc.arch);
  std::vector<std::string> wanted; // "all", or names separated by commas
  for (size_t start = 0; configuration != "all" && start <= configuration.size();) {
    size_t comma = std::min(configuration.find(',', start), configuration.size());
    if (comma > start)
      wanted.push_back(configuration.substr(start, comma - start));
    start = comma + 1;
  }
  for (const std::string &name : wanted)
    if (!doc.configuration(name))
      throw FeaturesError(doc.source + ": no configuration \"" + name + "\"");
  for (const ConfigurationAnalysis &c : doc.configurations) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), c.name) == wanted.end())
      continue;
    ConfigurationRecord r;
    r.analysis = &c;
    r.measured = res ? res->configuration(c.name) : nullptr;
    r.join = joinLaunches(doc, c, r.measured);
    for (size_t i = 0; i < c.launches.size(); ++i) {
      const JoinedLaunch &j = r.join.launches[i];
      LaunchInputs in;
      in.launch = &c.launches[i];
      in.report = c.reportOf(c.launches[i]);
      in.measuredLaunch = j.measured ? j.measured->launch : nullptr;
      in.counters = j.measured ? j.measured->counters : nullptr;
      in.peaks = peaks;
      r.launchFeatures.push_back(computeLaunchFeatures(in));
    }
    ConfigurationInputs ci;
    ci.analysis = &c;
    ci.launchFeatures = &r.launchFeatures;
    ci.join = &r.join;
    ci.result = res;
    ci.measured = r.measured;
    ci.peaks = peaks;
    r.features = computeConfigurationFeatures(ci);
    records_.push_back(std::move(r));
  }
  if (records_.empty())
    throw FeaturesError(doc.source + ": no configurations");
}

Json FeatureSet::recordJson(const ConfigurationRecord &r) const {
  const ConfigurationAnalysis &c = *r.analysis;
  Json j = Json::object();
  j["schema"] = kFeaturesSchema;
  j["task"] = analysis_->task ? analysis_->task->name : "";
  j["candidate"] = result_ ? result_->candidate : "";
  j["configuration"] = c.name;
  Json values = Json::object();
  for (const auto &[name, v] : c.values)
    values[name] = v;
  j["values"] = std::move(values);
  j["arch"] = analysis_->arch;
  j["outcome"] = result_ ? Json(result_->outcomeText()) : Json(nullptr);
  j["entry_found"] = c.entryFound;
  j["launches_complete"] = c.launchesComplete;
  if (!c.reason.empty())
    j["reason"] = c.reason;
  j["features"] = featuresToJson(configurationFeatureSpecs(), r.features);
  j["join"] = r.join.toJson();
  Json launches = Json::array();
  for (size_t i = 0; i < c.launches.size(); ++i) {
    const LaunchReport &l = c.launches[i];
    const JoinedLaunch &jl = r.join.launches[i];
    Json lj = Json::object();
    lj["index"] = l.index;
    lj["kernel"] = l.kernel;
    lj["mangled_name"] = l.mangledName;
    lj["resolved"] = l.resolved;
    if (!l.unresolved.empty()) {
      Json u = Json::array();
      for (const UnresolvedPart &p : l.unresolved)
        u.push_back(Json::object({{"part", p.part}, {"reason", p.reason}}));
      lj["unresolved"] = std::move(u);
    }
    lj["grid"] = dimJson(l.grid);
    lj["block"] = dimJson(l.block);
    lj["dynamic_smem_bytes"] = optionalJson(l.dynamicSmemBytes);
    if (jl.measured) {
      const MeasuredKernel *k = jl.measured->counters;
      lj["measured"] = Json::object({{"order", jl.measured->order},
                                     {"kernel", jl.measured->kernel},
                                     {"counters_launch", k ? Json(k->launch) : Json(nullptr)}});
    } else {
      lj["measured"] = nullptr;
    }
    lj["features"] = featuresToJson(launchFeatureSpecs(), r.launchFeatures[i]);
    launches.push_back(std::move(lj));
  }
  j["launches"] = std::move(launches);
  return j;
}

EvalResult selectResult(std::vector<EvalResult> results, const std::string &candidatePath) {
  std::ifstream in(candidatePath, std::ios::binary);
  if (!in)
    throw FeaturesError(candidatePath + ": cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string sha = support::sha256Hex(ss.str());
  for (EvalResult &r : results)
    if (r.candidateSha256 == sha)
      return std::move(r);
  if (results.size() == 1 && results[0].candidateSha256.empty())
    return std::move(results[0]);
  std::string source = results.empty() ? "the result file" : results[0].source;
  throw FeaturesError(source + ": " + std::to_string(results.size()) +
                      " result(s), none for " + candidatePath + " (SHA-256 " + sha.substr(0, 12) +
                      "...; was the file changed after it was evaluated?)");
}

std::unique_ptr<FeatureSet> computeFeatures(const FeatureRequest &request) {
  std::optional<AnalysisDocument> analysis;
  if (!request.analysisPath.empty()) {
    analysis = readAnalysisFile(request.analysisPath);
  } else {
    std::string analyzer = request.analyzerPath.empty() ? defaultAnalyzer() : request.analyzerPath;
    if (analyzer.empty())
      throw FeaturesError("cudaperf-analyze not found beside this program or on PATH (use --analyzer)");
    std::vector<std::string> argv = {analyzer,      "--task", request.taskDir, "--config", request.configuration,
                                     "--format=json", request.candidatePath};
    if (!request.analyzerFlags.empty()) {
      argv.push_back("--");
      argv.insert(argv.end(), request.analyzerFlags.begin(), request.analyzerFlags.end());
    }
    support::ProcessOptions po;
    po.timeoutSeconds = request.analyzerTimeoutSeconds;
    po.separateStderr = true;
    po.maxCapturedBytes = size_t(1) << 30; // the document; a --task report of many launches is large
    support::ProcessResult r = support::runProcess(argv, po);
    if (!r.succeeded())
      throw FeaturesError(analyzer + " --task " + request.taskDir + " " + request.candidatePath + ": " +
                          r.describe() + (r.errorOutput.empty() ? "" : "\n" + firstLines(r.errorOutput, 20)));
    if (r.outputTruncated)
      throw FeaturesError(analyzer + ": its output is larger than 1 GiB");
    if (!request.saveAnalysisPath.empty()) {
      std::ofstream saved(request.saveAnalysisPath, std::ios::binary | std::ios::trunc);
      saved << r.output;
      saved.close();
      if (!saved)
        throw FeaturesError(request.saveAnalysisPath + ": cannot be written");
    }
    try {
      analysis = readAnalysis(support::parseJson(r.output, "cudaperf-analyze output"), "cudaperf-analyze output");
    } catch (const support::SupportError &e) {
      throw FeaturesError(e.what());
    }
  }
  std::optional<EvalResult> result;
  if (!request.resultPath.empty())
    result = selectResult(readEvalResultFile(request.resultPath), request.candidatePath);
  return std::make_unique<FeatureSet>(std::move(*analysis), std::move(result), request.configuration);
}

} // namespace cudaperf::features
