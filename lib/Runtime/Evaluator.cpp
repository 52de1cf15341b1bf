#include "cudaperf/Runtime/Evaluator.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace cudaperf::runtime {

using support::Json;
using support::member;
using support::ProcessOptions;
using support::ProcessResult;
using support::runProcess;

namespace {
std::string joinedConfigs(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "" : ",") + n;
  return out;
}

} // namespace

struct Evaluator::TaskEntry {
  std::string dir;
  Task task;
  std::string loadError; // "" when the task is usable
  BuildResult reference;
  BuildResult baseline;
  std::once_flag built;
  // pytorch-to-cuda: where cudaperf-torch-reference left the expected sets, and its timings.
  bool pytorchPrepared = false;
  std::string pytorchError;
  std::string expectedDir;
  Json pytorchEager;
};

Evaluator::Evaluator(EvalOptions options, Toolchain toolchain)
    : options_(std::move(options)), toolchain_(std::move(toolchain)) {
  if (options_.workerPath.empty())
    options_.workerPath = support::executableDir() + "/cudaperf-eval-worker";
  if (options_.torchReferencePath.empty())
    options_.torchReferencePath = support::executableDir() + "/cudaperf-torch-reference";
  if (options_.build.cacheDir.empty())
    options_.build.cacheDir = defaultCacheDir();
  if (options_.workDir.empty()) {
    char tmpl[] = "/tmp/cudaperf-eval-XXXXXX";
    if (mkdtemp(tmpl))
      options_.workDir = tmpl;
    else
      options_.workDir = "/tmp";
  }
  options_.jobs = std::max(1, options_.jobs);
}

std::string Evaluator::prepare() {
  if (!options_.arch.empty() && options_.compileOnly)
    return "";
  if (access(options_.workerPath.c_str(), X_OK) != 0) {
    if (options_.compileOnly) {
      options_.arch = options_.arch.empty() ? "sm_90" : options_.arch;
      return "";
    }
    return "worker not found at " + options_.workerPath + " (use --worker)";
  }
  std::string events = options_.workDir + "/probe.events";
  unlink(events.c_str());
  ProcessOptions po;
  po.timeoutSeconds = 60;
  ProcessResult r = runProcess({options_.workerPath, "--probe", "--events", events}, po);
  std::string text;
  readFile(events, text);
  std::string error = r.output;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    try {
      Json v = support::parseJson(line, "worker event");
      const Json *event = member(v, "event"), *detail = member(v, "detail");
      if (event && *event == "device")
        device_ = v;
      else if (event && *event == "error" && detail && detail->is_string())
        error = detail->get<std::string>();
    } catch (const std::exception &) {
    }
  }
  if (device_.is_object()) {
    if (options_.arch.empty())
      if (const Json *arch = member(device_, "arch"); arch && arch->is_string())
        options_.arch = arch->get<std::string>();
    return "";
  }
  if (options_.compileOnly) {
    if (options_.arch.empty())
      options_.arch = "sm_90";
    return "";
  }
  return "no GPU to evaluate on: " + (error.empty() ? r.describe() : error);
}

std::shared_ptr<Evaluator::TaskEntry> Evaluator::taskFor(const std::string &dir, std::string &error) {
  for (auto &t : tasks_)
    if (t->dir == dir) {
      error = t->loadError;
      return t;
    }
  auto entry = std::make_shared<TaskEntry>();
  entry->dir = dir;
  try {
    entry->task = loadTask(dir);
    selectConfigs(entry->task, options_.configs);
  } catch (const TaskError &e) {
    entry->loadError = e.what();
  }
  tasks_.push_back(entry);
  error = entry->loadError;
  return entry;
}

Json Evaluator::taskFailure(const EvalJob &job, Outcome outcome, const std::string &detail) {
  Json doc = Json::object();
  doc["schema"] = kResultSchema;
  doc["task_dir"] = job.taskDir;
  doc["candidate"] = job.candidatePath;
  doc["outcome"] = outcomeName(outcome);
  doc["detail"] = detail;
  return doc;
}

std::string Evaluator::preparePyTorchReference(TaskEntry &t) {
  if (t.pytorchPrepared)
    return t.pytorchError;
  t.pytorchPrepared = true;
  const Task &task = t.task;
  auto fail = [&](const std::string &why) { return t.pytorchError = why; };
  if (access(options_.torchReferencePath.c_str(), X_OK) != 0)
    return fail("pytorch-to-cuda tasks need cudaperf-torch-reference (built where LibTorch is found; see "
                "docs/pytorch-tasks.md), not found at " + options_.torchReferencePath);
  // The cache key: the task, every exported module, the seeds and the reference program itself.
  std::string taskText;
  readFile(task.dir + "/task.json", taskText);
  support::Sha256 key;
  key.field("torch-reference/1").field(taskText).field(std::to_string(options_.seed))
      .field(std::to_string(options_.sets)).field(std::to_string(options_.warmup))
      .field(std::to_string(options_.minRuns)).field(std::to_string(options_.budgetMs))
      .field(joinedConfigs(options_.configs));
  for (const Config &c : task.configs) {
    std::string path = task.pytorch->exportedPath(task.dir, c.name), content;
    if (!readFile(path, content))
      return fail(path + ": missing; generate the exported modules on a machine with PyTorch "
                         "(`make tasks`, docs/pytorch-tasks.md)");
    key.field(support::sha256Hex(content));
  }
  std::string program;
  readFile(options_.torchReferencePath, program);
  key.field(support::sha256Hex(program));
  std::string dir = options_.build.cacheDir + "/torch-reference/" + key.hex();
  std::string timingPath = dir + "/timing.json";
  std::string text;
  if (!options_.build.useCache || !readFile(timingPath, text)) {
    std::string tmp = dir + ".tmp-" + std::to_string(getpid());
    if (!makeDirs(tmp))
      return fail("cannot create " + tmp);
    ProcessOptions po;
    po.timeoutSeconds = options_.torchTimeoutSeconds;
    po.outputPath = options_.workDir + "/torch-reference.log";
    po.maxCapturedBytes = 8192;
    std::vector<std::string> argv = {options_.torchReferencePath, "--task", task.dir, "--out", tmp,
                                     "--seed", std::to_string(options_.seed), "--sets", std::to_string(options_.sets),
                                     "--warmup", std::to_string(options_.warmup),
                                     "--min-runs", std::to_string(options_.minRuns),
                                     "--max-runs", std::to_string(options_.maxRuns),
                                     "--budget-ms", std::to_string(options_.budgetMs)};
    if (!options_.timing)
      argv.push_back("--no-timing");
    if (!options_.configs.empty())
      argv.insert(argv.end(), {"--configs", joinedConfigs(options_.configs)});
    ProcessResult r = runProcess(argv, po);
    if (!r.exited || r.exitCode != 0 || !readFile(tmp + "/timing.json", text))
      return fail("cudaperf-torch-reference failed (" + r.describe() + "): " + r.output);
    makeDirs(dir);
    // Publish atomically: a concurrent evaluator either sees the whole directory or none.
    if (rename(tmp.c_str(), dir.c_str()) != 0) {
      std::string other;
      if (!readFile(timingPath, other)) // not someone else's finished copy: use ours in place
        dir = tmp;
    }
  }
  try {
    t.pytorchEager = support::parseJson(text, timingPath);
  } catch (const std::exception &e) {
    return fail(timingPath + ": " + e.what());
  }
  t.expectedDir = dir;
  return "";
}

Json Evaluator::runWorker(const TaskEntry &t, const EvalJob &job, const BuildResult &build, size_t index) {
  auto start = std::chrono::steady_clock::now();
  EvalRecord rec;
  rec.task = &t.task;
  rec.candidatePath = job.candidatePath;
  std::string source;
  readFile(job.candidatePath, source);
  rec.candidateSha256 = support::sha256Hex(source);
  rec.arch = options_.arch;
  rec.candidateBuild = build;
  rec.compileOnly = options_.compileOnly;
  rec.seed = options_.seed;
  rec.sets = options_.sets;
  rec.stallSeconds = options_.stallSeconds;
  rec.toolchain = &toolchain_;
  if (t.task.kind == TaskKind::PyTorchToCuda && t.pytorchEager.is_object())
    rec.pytorchEager = &t.pytorchEager;
  if (build.ok && !options_.compileOnly) {
    std::string events = options_.workDir + "/worker-" + std::to_string(index) + ".events";
    std::string log = options_.workDir + "/worker-" + std::to_string(index) + ".log";
    unlink(events.c_str());
    std::vector<std::string> argv = {options_.workerPath, "--events", events, "--task", t.task.dir,
                                     "--baseline", t.baseline.objectPath, "--candidate", build.objectPath,
                                     "--seed", std::to_string(options_.seed), "--sets", std::to_string(options_.sets),
                                     "--warmup", std::to_string(options_.warmup),
                                     "--min-runs", std::to_string(options_.minRuns),
                                     "--max-runs", std::to_string(options_.maxRuns),
                                     "--budget-ms", std::to_string(options_.budgetMs)};
    if (t.task.kind == TaskKind::PyTorchToCuda)
      argv.insert(argv.end(), {"--expected-dir", t.expectedDir});
    else
      argv.insert(argv.end(), {"--reference", t.reference.objectPath});
    if (!options_.timing)
      argv.push_back("--no-timing");
    if (options_.counters)
      argv.push_back("--counters");
    if (!options_.configs.empty())
      argv.insert(argv.end(), {"--configs", joinedConfigs(options_.configs)});
    if (options_.build.useCache) {
      std::string data = options_.build.cacheDir + "/data";
      if (makeDirs(data))
        argv.insert(argv.end(), {"--data-cache", data});
    }
    ProcessOptions po;
    po.timeoutSeconds = options_.timeoutSeconds;
    po.outputPath = log;
    po.maxCapturedBytes = 4096;
    po.fileSizeLimit = options_.outputLimitBytes;
    po.progressPath = events;
    po.stallSeconds = options_.stallSeconds;
    // Whatever the caller's environment says, launches stay asynchronous (timing depends on it).
    po.extraEnv = {"CUDA_LAUNCH_BLOCKING=0", "CUDA_DEVICE_MAX_CONNECTIONS=8"};
    rec.worker = runProcess(argv, po);
    rec.workerRan = rec.worker.started;
    if (!rec.worker.started)
      rec.worker.output = rec.worker.startError;
    readFile(events, rec.events);
    unlink(events.c_str());
    unlink(log.c_str());
  }
  rec.evaluationSeconds =
      build.seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return assembleResult(rec);
}

std::vector<Json> Evaluator::run(const std::vector<EvalJob> &jobs,
                                        const std::function<void(size_t, const Json &)> &onResult) {
  std::vector<Json> results(jobs.size());
  // Task loading is cheap and single-threaded; builds are spread over `jobs` threads; the worker
  // runs on this thread, in order, as soon as each candidate's build is done.
  std::vector<std::shared_ptr<TaskEntry>> entries(jobs.size());
  std::vector<std::string> taskErrors(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i)
    entries[i] = taskFor(jobs[i].taskDir, taskErrors[i]);

  std::vector<BuildResult> builds(jobs.size());
  std::vector<char> ready(jobs.size(), 0);
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  BuildOptions bo = options_.build;
  bo.arch = options_.arch;

  auto buildOne = [&](size_t i) {
    TaskEntry &t = *entries[i];
    if (taskErrors[i].empty()) {
      std::call_once(t.built, [&] {
        if (t.task.kind == TaskKind::CToCuda)
          t.reference = buildReference(t.task, toolchain_, bo);
        else
          t.reference.ok = true; // the PyTorch reference runs in cudaperf-torch-reference
        t.baseline = buildImplementation(t.task, t.task.baselinePath(), toolchain_, bo);
      });
      builds[i] = buildImplementation(t.task, jobs[i].candidatePath, toolchain_, bo);
    }
    std::lock_guard<std::mutex> lock(mu);
    ready[i] = 1;
    cv.notify_all();
  };
  std::vector<std::thread> builders;
  for (int w = 0; w < options_.jobs; ++w)
    builders.emplace_back([&] {
      for (size_t i; (i = next++) < jobs.size();)
        buildOne(i);
    });

  for (size_t i = 0; i < jobs.size(); ++i) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return ready[i] != 0; });
    }
    TaskEntry &t = *entries[i];
    std::string pytorchError;
    // On this thread, between workers: the reference's GPU work never overlaps a timing.
    if (taskErrors[i].empty() && t.task.kind == TaskKind::PyTorchToCuda && !options_.compileOnly && builds[i].ok)
      pytorchError = preparePyTorchReference(t);
    if (!taskErrors[i].empty()) {
      results[i] = taskFailure(jobs[i], Outcome::InternalError, taskErrors[i]);
    } else if (access(jobs[i].candidatePath.c_str(), R_OK) != 0) {
      results[i] = taskFailure(jobs[i], Outcome::InternalError, jobs[i].candidatePath + ": cannot be read");
    } else if (!t.reference.ok) {
      results[i] = taskFailure(jobs[i], Outcome::InternalError, "reference.c does not build:\n" + t.reference.log);
    } else if (!pytorchError.empty()) {
      results[i] = taskFailure(jobs[i], Outcome::InternalError, pytorchError);
    } else if (!t.baseline.ok) {
      results[i] = taskFailure(jobs[i], Outcome::InternalError, "impls/baseline.cu does not build:\n" + t.baseline.log);
    } else {
      results[i] = runWorker(t, jobs[i], builds[i], i);
    }
    if (onResult)
      onResult(i, results[i]);
  }
  for (auto &b : builders)
    b.join();
  return results;
}

} // namespace cudaperf::runtime
