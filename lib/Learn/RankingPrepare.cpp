#include "cudaperf/Learn/RankingPrepare.h"

#include "cudaperf/Features/Features.h"
#include "cudaperf/Features/FeaturesError.h"
#include "cudaperf/Learn/RankingCandidates.h"
#include "cudaperf/Learn/ResultFiles.h"
#include "cudaperf/Learn/SourceComments.h"
#include "cudaperf/Reward/Pipeline.h"
#include "cudaperf/Reward/RewardConfig.h"
#include "cudaperf/Schema/Manifest.h"
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/JsonReader.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"


#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace cudaperf::learn::rank {

using learn::LearnError;
using learn::RankExample;
using support::Json;

namespace {

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw LearnError(path + ": cannot read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// One candidate to turn into examples, with what is known about it already.
struct Job {
  std::string taskDir, candidatePath;
  std::optional<Json> result;
  RankExample meta; // set, task, family, kind, split, heldOutFamily, implementation
};

class Preparer {
public:
  explicit Preparer(const PrepareOptions &o) : options_(o) {
    analyzer_ = o.analyzerPath;
    if (analyzer_.empty()) {
      fs::path beside = fs::path(support::executableDir()) / "cudaperf-analyze";
      analyzer_ = fs::exists(beside) ? beside.string() : "cudaperf-analyze";
    }
    if (!o.cacheDir.empty())
      fs::create_directories(o.cacheDir);
    // The analyzer's identity in the cache key: a rebuilt analyzer (new analyses) misses the cache.
    std::error_code ec;
    fs::path resolved = analyzer_;
    if (!resolved.has_parent_path())
      for (std::string dir : {"/usr/local/bin", "/usr/bin"})
        if (fs::exists(fs::path(dir) / analyzer_))
          resolved = fs::path(dir) / analyzer_;
    auto size = fs::file_size(resolved, ec);
    auto stamp = fs::last_write_time(resolved, ec).time_since_epoch().count();
    analyzerIdentity_ = resolved.filename().string() + " " + std::to_string(ec ? 0 : size) + " " +
                        std::to_string(ec ? 0 : stamp);
  }

  // The --task analysis of a candidate, from the cache or the analyzer.
  features::AnalysisDocument analysis(const std::string &taskDir, const std::string &candidate, bool &wasCached) {
    std::string key = support::sha256Hex(readText((fs::path(taskDir) / "task.json").string()) + "\n" +
                                         readText(candidate) + "\n" + analyzerIdentity_);
    fs::path cached = options_.cacheDir.empty() ? fs::path() : fs::path(options_.cacheDir) / (key + ".json");
    wasCached = !cached.empty() && fs::exists(cached);
    std::string text;
    if (wasCached) {
      text = readText(cached.string());
    } else {
      support::ProcessOptions po;
      po.timeoutSeconds = options_.analyzerTimeoutSeconds;
      po.separateStderr = true;
      po.maxCapturedBytes = size_t(1) << 30;
      support::ProcessResult r =
          support::runProcess({analyzer_, "--task", taskDir, "--config", "all", "--format=json", candidate}, po);
      if (!r.succeeded())
        throw LearnError(analyzer_ + " --task " + taskDir + " " + candidate + ": " + r.describe() + "\n" +
                         r.errorOutput.substr(0, 2000));
      text = r.output;
      if (!cached.empty()) {
        fs::path tmp = cached;
        tmp += ".tmp" + std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()));
        std::ofstream(tmp, std::ios::binary) << text;
        fs::rename(tmp, cached);
      }
    }
    try {
      return features::readAnalysis(support::parseJson(text, "cudaperf-analyze output of " + candidate),
                                    "cudaperf-analyze output of " + candidate);
    } catch (const support::SupportError &e) {
      throw LearnError(e.what());
    }
  }

  std::vector<RankExample> examples(const Job &job) {
    bool cached = false;
    features::AnalysisDocument doc = analysis(job.taskDir, job.candidatePath, cached);
    (cached ? cached_ : analysed_)++;
    std::optional<features::AnalysisDocument> baseline = baselineAnalysis(job.taskDir);
    std::optional<features::EvalResult> result;
    if (job.result) {
      Json doc = *job.result;
      if (!support::member(doc, "candidate")) // the dataset's stored results leave local paths out
        doc["candidate"] = job.candidatePath;
      result = features::readEvalResult(doc, job.candidatePath);
    }
    return learn::rankExamplesFromAnalysis(doc, baseline, result, job.meta, job.candidatePath, readText(job.candidatePath));
  }

  size_t analysed() const { return analysed_; }
  size_t cached() const { return cached_; }

private:
  std::optional<features::AnalysisDocument> baselineAnalysis(const std::string &taskDir) {
    fs::path baseline = fs::path(taskDir) / "impls" / "baseline.cu";
    if (!fs::exists(baseline))
      return std::nullopt;
    bool cached = false;
    try {
      return analysis(taskDir, baseline.string(), cached);
    } catch (const LearnError &) {
      return std::nullopt; // the predicted-speedup term is then missing; the structural terms stand
    }
  }

  PrepareOptions options_;
  std::string analyzer_, analyzerIdentity_;
  std::atomic<size_t> analysed_{0}, cached_{0};
};

std::vector<RankExample> runJobs(const std::vector<Job> &jobs, const PrepareOptions &options, PrepareReport &report) {
  Preparer preparer(options);
  std::vector<std::vector<RankExample>> perJob(jobs.size());
  std::vector<std::string> errors(jobs.size());
  std::atomic<size_t> next{0}, done{0};
  std::mutex progressMutex;
  auto worker = [&] {
    for (size_t i; (i = next++) < jobs.size();) {
      try {
        perJob[i] = preparer.examples(jobs[i]);
      } catch (const std::exception &e) {
        errors[i] = jobs[i].meta.task + "/" + jobs[i].meta.implementation + ": " + e.what();
      }
      size_t d = ++done;
      if (options.progress && (d % 20 == 0 || d == jobs.size())) {
        std::lock_guard<std::mutex> lock(progressMutex);
        options.progress("prepared " + std::to_string(d) + "/" + std::to_string(jobs.size()) + " candidates (" +
                         std::to_string(preparer.analysed()) + " analysed, " + std::to_string(preparer.cached()) +
                         " from the cache)");
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, options.jobs); ++t)
    threads.emplace_back(worker);
  for (std::thread &t : threads)
    t.join();
  std::vector<RankExample> out;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!errors[i].empty()) {
      ++report.failed;
      if (report.problems.size() < 20)
        report.problems.push_back(errors[i].substr(0, 600));
    }
    out.insert(out.end(), perJob[i].begin(), perJob[i].end());
  }
  report.candidates += jobs.size();
  report.examples += out.size();
  report.analysed += preparer.analysed();
  report.cached += preparer.cached();
  return out;
}

std::string stringMember(const Json &doc, const char *key) {
  const Json *v = support::member(doc, key);
  return v && v->is_string() ? v->get<std::string>() : "";
}

struct ManifestTask {
  std::string dir, family, kind, split;
};

std::map<std::string, ManifestTask> readManifest(const std::string &datasetDir, std::set<std::string> &heldOut) {
  std::string manifestPath = (fs::path(datasetDir) / "manifest.jsonl").string();
  std::map<std::string, ManifestTask> tasks;
  std::string text = readText(manifestPath);
  try {
    for (const schema::ManifestEntry &e : schema::parseManifest(text, manifestPath))
      tasks[e.task] = {e.dir, e.family.value_or(""), e.kind.value_or(""), e.split};
  } catch (const support::SupportError &e) {
    throw LearnError(e.what());
  }
  try {
    Json dataset = support::readJsonFile((fs::path(datasetDir) / "dataset.json").string());
    for (const Json &f : dataset.at("families"))
      if (f.value("held_out", false))
        heldOut.insert(f.at("name").get<std::string>());
  } catch (const std::exception &e) {
    throw LearnError((fs::path(datasetDir) / "dataset.json").string() + ": " + e.what());
  }
  return tasks;
}

} // namespace

std::vector<RankExample> prepareDataset(const std::string &datasetDir, const std::vector<std::string> &resultFiles,
                                        const PrepareOptions &options, PrepareReport &report) {
  std::set<std::string> heldOut;
  std::map<std::string, ManifestTask> manifest = readManifest(datasetDir, heldOut);
  // The last record of a (task, implementation) wins: later files are later measurements.
  std::map<std::pair<std::string, std::string>, Job> jobs;
  for (const std::string &file : resultFiles)
    for (Json &doc : readResultDocuments(file)) {
      ++report.results;
      std::string task = stringMember(doc, "dataset_task"), impl = stringMember(doc, "dataset_impl");
      auto it = manifest.find(task);
      if (task.empty() || impl.empty() || it == manifest.end()) {
        ++report.unmatched;
        if (report.problems.size() < 20)
          report.problems.push_back(file + ": a result of " + (task.empty() ? "no dataset_task" : "task " + task) +
                                    " that the dataset's manifest does not list");
        continue;
      }
      fs::path taskDir = fs::path(datasetDir) / it->second.dir;
      fs::path source = taskDir / "impls" / impl;
      if (!fs::exists(source) || support::sha256Hex(readText(source.string())) != stringMember(doc, "candidate_sha256")) {
        ++report.unmatched;
        if (report.problems.size() < 20)
          report.problems.push_back(file + ": " + task + "/" + impl +
                                    ": the generated file differs from the one measured (another seed or generator version?)");
        continue;
      }
      Job job;
      job.taskDir = taskDir.string();
      job.candidatePath = source.string();
      job.meta.set = "dataset";
      job.meta.task = task;
      job.meta.family = it->second.family;
      job.meta.kind = it->second.kind;
      job.meta.split = it->second.split;
      job.meta.heldOutFamily = heldOut.count(it->second.family) > 0;
      job.meta.implementation = impl;
      auto [slot, fresh] = jobs.insert_or_assign({task, impl}, std::move(job));
      slot->second.result = std::move(doc);
      if (!fresh)
        ++report.duplicates;
    }
  std::vector<Job> list;
  for (auto &[key, job] : jobs)
    list.push_back(std::move(job));
  return runJobs(list, options, report);
}

std::vector<RankExample> prepareShipped(const std::string &tasksRoot, const std::vector<std::string> &resultFiles,
                                        const PrepareOptions &options, PrepareReport &report) {
  std::map<std::string, Json> bySha;
  for (const std::string &file : resultFiles)
    for (Json &doc : readResultDocuments(file)) {
      ++report.results;
      std::string sha = stringMember(doc, "candidate_sha256");
      if (!sha.empty())
        bySha[sha] = std::move(doc);
    }
  std::vector<fs::path> taskDirs;
  for (const fs::path &root : {fs::path(tasksRoot), fs::path(tasksRoot) / "pytorch"})
    if (fs::is_directory(root))
      for (const auto &entry : fs::directory_iterator(root))
        if (fs::exists(entry.path() / "task.json") && fs::is_directory(entry.path() / "impls"))
          taskDirs.push_back(entry.path());
  std::sort(taskDirs.begin(), taskDirs.end());
  std::vector<Job> jobs;
  for (const fs::path &dir : taskDirs) {
    std::vector<fs::path> impls;
    for (const auto &entry : fs::directory_iterator(dir / "impls"))
      if (entry.path().extension() == ".cu")
        impls.push_back(entry.path());
    std::sort(impls.begin(), impls.end());
    for (const fs::path &impl : impls) {
      auto it = bySha.find(support::sha256Hex(readText(impl.string())));
      if (it == bySha.end())
        continue; // not measured in these files
      Job job;
      job.taskDir = dir.string();
      job.candidatePath = impl.string();
      job.result = it->second;
      job.meta.set = "shipped";
      job.meta.task = dir.filename().string();
      job.meta.family = dir.filename().string();
      job.meta.kind = dir.parent_path().filename() == "pytorch" ? "pytorch" : "c";
      job.meta.split = "test";
      job.meta.implementation = impl.filename().string();
      jobs.push_back(std::move(job));
    }
  }
  return runJobs(jobs, options, report);
}

std::vector<RankExample> prepareCandidates(const std::string &taskDir, const std::vector<std::string> &candidates,
                                           const PrepareOptions &options) {
  if (!fs::exists(fs::path(taskDir) / "task.json"))
    throw LearnError(taskDir + ": not a task folder (no task.json)");
  std::vector<Job> jobs;
  for (const std::string &c : candidates) {
    if (!fs::is_regular_file(c))
      throw LearnError(c + ": no such candidate file");
    Job job;
    job.taskDir = taskDir;
    job.candidatePath = c;
    job.meta.set = "candidates";
    job.meta.task = fs::path(taskDir).lexically_normal().filename().string();
    job.meta.implementation = c;
    jobs.push_back(std::move(job));
  }
  PrepareReport report;
  std::vector<RankExample> out = runJobs(jobs, options, report);
  if (!report.problems.empty())
    throw LearnError(report.problems.front());
  return out;
}

bool isCounterFeature(const std::string &name) {
  for (const auto &spec : features::configurationFeatureSpecs())
    if (name == spec.name)
      return spec.source == features::FeatureSource::Counters;
  return false;
}

std::vector<std::string> rankInputFeatures(bool counters, bool staticScore) {
  std::vector<std::string> names;
  for (const auto &spec : features::configurationFeatureSpecs()) {
    bool take = spec.source == features::FeatureSource::Analysis ||
                (counters && spec.source == features::FeatureSource::Counters &&
                 std::string(spec.name) != "measured_total_duration_us");
    if (take)
      names.push_back(spec.name);
  }
  if (staticScore)
    names.push_back(learn::kStaticScoreInput);
  return names;
}

bool rankFeatureIsMagnitude(const std::string &name) {
  if (name == learn::kStaticScoreInput)
    return false; // a reward total, already of order one
  for (const auto &spec : features::configurationFeatureSpecs())
    if (name == spec.name)
      return std::string(spec.unit) != "fraction" && std::string(spec.unit) != "0/1";
  return true;
}

std::vector<std::string> trainingSources(const std::string &datasetDir, size_t limit) {
  std::set<std::string> heldOut;
  std::map<std::string, ManifestTask> manifest = readManifest(datasetDir, heldOut);
  std::vector<fs::path> files;
  for (const auto &[task, t] : manifest) {
    if (t.split != "train" || heldOut.count(t.family))
      continue;
    fs::path impls = fs::path(datasetDir) / t.dir / "impls";
    if (!fs::is_directory(impls))
      continue;
    std::vector<fs::path> here;
    for (const auto &entry : fs::directory_iterator(impls))
      if (entry.path().extension() == ".cu")
        here.push_back(entry.path());
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  std::vector<std::string> texts;
  size_t step = limit && files.size() > limit ? (files.size() + limit - 1) / limit : 1;
  for (size_t i = 0; i < files.size(); i += step)
    texts.push_back(learn::stripComments(readText(files[i].string()))); // as the tokens model reads them
  return texts;
}

} // namespace cudaperf::learn::rank
