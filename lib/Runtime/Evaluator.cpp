#include "cudaperf/Runtime/Evaluator.h"
#include "DeviceSlot.h"
#include "EvalTask.h"

#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unistd.h>

namespace cudaperf::runtime {

using support::Json;
using support::member;

namespace {

std::string joinedConfigs(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "" : ",") + n;
  return out;
}

// A result for a candidate that never reached a worker.
Json failureDoc(const std::string &taskDir, const std::string &candidate, Outcome outcome, const std::string &detail) {
  return schema::EvalResult::notRun(taskDir, candidate, outcome, detail).toJson();
}

} // namespace

struct Evaluator::Impl {
  EvalOptions options;
  Toolchain toolchain;
  std::vector<Json> devices; // those used, in the order of `slots`
  Json noDevice;
  std::vector<std::unique_ptr<DeviceSlot>> slots;
  std::mutex mu; // tasks, scheduler creation
  std::map<std::string, std::unique_ptr<TaskEntry>> tasks;
  std::atomic<size_t> serial{0};
  bool ownWorkDir = false; // created here: removed at the end
  // Last, so it is destroyed first: its threads run jobs that use everything above.
  std::unique_ptr<Scheduler> scheduler;

  Scheduler &ensureScheduler() {
    std::lock_guard<std::mutex> lock(mu);
    if (!scheduler) {
      if (!options.compileOnly)
        for (const Json &d : devices)
          slots.push_back(std::make_unique<DeviceSlot>(options, toolchain, d));
      scheduler = std::make_unique<Scheduler>(options.jobs, int(slots.size()), options.queueLimit);
    }
    return *scheduler;
  }

  TaskEntry &taskFor(const std::string &dir, const std::vector<std::string> &configs) {
    std::lock_guard<std::mutex> lock(mu);
    std::string key = dir + "\n" + joinedConfigs(configs);
    auto &slot = tasks[key];
    if (!slot) {
      slot = std::make_unique<TaskEntry>();
      slot->dir = dir;
      slot->configs = configs;
      try {
        slot->task = loadTask(dir);
        selectConfigs(slot->task, configs);
        slot->dir = slot->task.dir;
        readFile(slot->task.dir + "/task.json", slot->taskText);
      } catch (const TaskError &e) {
        slot->loadError = e.what();
      }
    }
    return *slot;
  }

  // A pytorch-to-cuda task's reference identity: the task, every exported module, the seeds, the
  // timing options and the reference program; its eager timing is cached under it.
  void identifyTorchReference(TaskEntry &t) {
    if (access(options.torchReferencePath.c_str(), X_OK) != 0) {
      t.torchError = "pytorch-to-cuda tasks need cudaperf-torch-reference (built where LibTorch is found; see "
                     "docs/pytorch-tasks.md), not found at " + options.torchReferencePath;
      return;
    }
    support::Sha256 key;
    key.field("torch-reference/2").field(t.taskText).field(std::to_string(options.seed))
        .field(std::to_string(options.sets)).field(std::to_string(options.warmup))
        .field(std::to_string(options.minRuns)).field(std::to_string(options.budgetMs))
        .field(joinedConfigs(t.configs)).field(options.timing ? "timed" : "untimed");
    for (const Config &c : t.task.configs) {
      std::string path = t.task.pytorch->exportedPath(t.task.dir, c.name), content;
      if (!readFile(path, content)) {
        t.torchError = path + ": missing; generate the exported modules on a machine with PyTorch "
                              "(`make tasks`, docs/pytorch-tasks.md)";
        return;
      }
      key.field(support::sha256Hex(content));
    }
    std::string program;
    readFile(options.torchReferencePath, program);
    key.field(support::sha256Hex(program));
    t.torchKey = key.hex();
    std::string dir = options.build.useCache ? options.build.cacheDir + "/torch-reference/" + t.torchKey
                                             : options.workDir + "/torch-reference-" + t.torchKey.substr(0, 16);
    if (!makeDirs(dir))
      t.torchError = "cannot create " + dir;
    t.torchTimingPath = dir + "/timing.json";
  }
};

namespace {

class CandidateJob : public ScheduledJob {
public:
  CandidateJob(Evaluator::Impl &ev, EvalJob job, Evaluator::Done done)
      : ev_(ev), job_(std::move(job)), done_(std::move(done)) {
    c_.submitted = Clock::now();
    c_.serial = ++ev_.serial;
  }

  bool build() override {
    c_.buildStarted = Clock::now();
    bool needsRun = false;
    try {
      needsRun = prepare();
    } catch (const std::exception &e) { // one request never takes the evaluator down
      result_ = failureDoc(job_.taskDir, displayName(), Outcome::InternalError, std::string("evaluator: ") + e.what());
    }
    c_.built = Clock::now();
    if (!needsRun && result_.is_object() && !result_.contains("stage_seconds"))
      result_["stage_seconds"] = Json{{"queued", secondsBetween(c_.submitted, c_.buildStarted)},
                                      {"build", secondsBetween(c_.buildStarted, c_.built)}};
    return needsRun;
  }

  void run(int device) override {
    try {
      result_ = ev_.slots[size_t(device)]->run(c_, ev_.scheduler->stats().waiting);
    } catch (const std::exception &e) {
      result_ = failureDoc(job_.taskDir, displayName(), Outcome::InternalError, std::string("evaluator: ") + e.what());
    }
  }

  void finish(bool cancelled) override { done_(result_, cancelled); }

private:
  Evaluator::Impl &ev_;
  EvalJob job_;
  Evaluator::Done done_;
  BuiltCandidate c_;
  Json result_;

  std::string displayName() const { return job_.hasSource ? job_.candidateName : job_.candidatePath; }

  // Everything before the GPU: the task, the candidate's file, the builds. True when a worker
  // must run; otherwise result_ is the answer.
  bool prepare() {
    const EvalOptions &o = ev_.options;
    TaskEntry &t = ev_.taskFor(job_.taskDir, job_.configs ? *job_.configs : o.configs);
    c_.task = &t;
    c_.counters = job_.counters.value_or(o.counters);
    if (!t.loadError.empty()) {
      result_ = failureDoc(job_.taskDir, displayName(), Outcome::InternalError, t.loadError);
      return false;
    }
    std::string source;
    if (job_.hasSource) {
      source = job_.candidateSource;
      std::string dir = o.workDir + "/sources";
      c_.candidatePath = dir + "/" + support::sha256Hex(source).substr(0, 24) + ".cu";
      if (!makeDirs(dir) || !writeFile(c_.candidatePath, source)) {
        result_ = failureDoc(t.dir, displayName(), Outcome::InternalError, "cannot write " + c_.candidatePath);
        return false;
      }
    } else {
      c_.candidatePath = job_.candidatePath;
      if (!readFile(job_.candidatePath, source)) {
        result_ = failureDoc(t.dir, displayName(), Outcome::InternalError, job_.candidatePath + ": cannot be read");
        return false;
      }
    }
    c_.candidateSha256 = support::sha256Hex(source);
    BuildOptions bo = o.build;
    bo.arch = o.arch;
    std::call_once(t.built, [&] {
      if (t.task.kind == TaskKind::CToCuda) {
        t.reference = buildReference(t.task, ev_.toolchain, bo);
      } else {
        t.reference.ok = true; // the PyTorch reference runs in cudaperf-torch-reference
        if (!o.compileOnly)
          ev_.identifyTorchReference(t);
      }
      if (t.task.hasBaseline())
        t.baseline = buildImplementation(t.task, t.task.baselinePath(), ev_.toolchain, bo);
      else
        t.baseline.ok = true; // pytorch-to-cuda without one: measured against PyTorch eager alone

    });
    c_.build = buildImplementation(t.task, c_.candidatePath, ev_.toolchain, bo);
    if (!c_.build.ok || o.compileOnly) {
      EvalRecord rec;
      rec.task = &t.task;
      rec.candidatePath = displayName();
      rec.candidateSha256 = c_.candidateSha256;
      rec.arch = o.arch;
      rec.candidateBuild = c_.build;
      rec.compileOnly = o.compileOnly;
      rec.toolchain = &ev_.toolchain;
      rec.evaluationSeconds = c_.build.seconds;
      result_ = assembleResult(rec);
      return false;
    }
    std::string why;
    if (!t.reference.ok)
      why = "reference.c does not build:\n" + t.reference.log;
    else if (!t.baseline.ok)
      why = "impls/baseline.cu does not build:\n" + t.baseline.log;
    else if (!t.torchError.empty())
      why = t.torchError;
    else if (ev_.slots.empty())
      why = "no GPU to run on";
    if (!why.empty()) {
      result_ = failureDoc(t.dir, displayName(), Outcome::InternalError, why);
      return false;
    }
    c_.candidatePath = displayName();
    return true;
  }
};

} // namespace

Evaluator::Evaluator(EvalOptions options, Toolchain toolchain) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->toolchain = std::move(toolchain);
  EvalOptions &o = impl_->options;
  if (o.workerPath.empty())
    o.workerPath = support::executableDir() + "/cudaperf-eval-worker";
  if (o.torchReferencePath.empty())
    o.torchReferencePath = support::executableDir() + "/cudaperf-torch-reference";
  if (o.build.cacheDir.empty())
    o.build.cacheDir = defaultCacheDir();
  if (o.workDir.empty()) {
    char tmpl[] = "/tmp/cudaperf-eval-XXXXXX";
    impl_->ownWorkDir = mkdtemp(tmpl) != nullptr;
    o.workDir = impl_->ownWorkDir ? tmpl : "/tmp";
  }
  o.jobs = std::max(1, o.jobs);
  // A worker that died while we wrote its job must not take the evaluator with it.
  signal(SIGPIPE, SIG_IGN);
}

Evaluator::~Evaluator() {
  if (impl_->scheduler) {
    impl_->scheduler->close(true);
    impl_->scheduler->wait();
  }
  impl_->scheduler.reset();
  impl_->slots.clear(); // spare workers and holders stopped
  if (impl_->ownWorkDir) {
    std::error_code ignored;
    std::filesystem::remove_all(impl_->options.workDir, ignored);
  }
}

const Json &Evaluator::device() const { return impl_->devices.empty() ? impl_->noDevice : impl_->devices.front(); }
const std::vector<Json> &Evaluator::devices() const { return impl_->devices; }
const std::string &Evaluator::arch() const { return impl_->options.arch; }
const EvalOptions &Evaluator::options() const { return impl_->options; }

std::string Evaluator::prepare() {
  EvalOptions &o = impl_->options;
  if (!o.arch.empty() && o.compileOnly)
    return "";
  if (access(o.workerPath.c_str(), X_OK) != 0) {
    if (o.compileOnly) {
      o.arch = o.arch.empty() ? "sm_90" : o.arch;
      return "";
    }
    return "worker not found at " + o.workerPath + " (use --worker)";
  }
  std::string events = o.workDir + "/probe.events";
  unlink(events.c_str());
  support::ProcessOptions po;
  po.timeoutSeconds = 60;
  support::ProcessResult r = support::runProcess({o.workerPath, "--probe", "--events", events}, po);
  std::string text;
  readFile(events, text);
  std::string error = r.output;
  std::vector<Json> visible;
  for (const schema::WorkerEvent &e : schema::readWorkerEvents(text)) {
    if (e.is<schema::events::Device>()) {
      Json v = schema::workerEventToJson(e);
      v.erase("event");
      v.erase("t");
      visible.push_back(std::move(v));
    } else if (const schema::events::Error *failed = e.as<schema::events::Error>(); failed && failed->detail) {
      error = *failed->detail;
    }
  }
  if (o.devices.empty()) {
    impl_->devices = visible;
  } else {
    for (int d : o.devices) {
      if (d < 0 || size_t(d) >= visible.size())
        return "--devices: there is no GPU " + std::to_string(d) + " (" + std::to_string(visible.size()) +
               " visible)";
      impl_->devices.push_back(visible[size_t(d)]);
    }
  }
  if (!impl_->devices.empty()) {
    if (o.arch.empty())
      if (const Json *arch = member(impl_->devices.front(), "arch"); arch && arch->is_string())
        o.arch = arch->get<std::string>();
    return "";
  }
  if (o.compileOnly) {
    if (o.arch.empty())
      o.arch = "sm_90";
    return "";
  }
  return "no GPU to evaluate on: " + (error.empty() ? r.describe() : error);
}

Scheduler::Submit Evaluator::submit(const std::string &id, EvalJob job, Done done, bool block) {
  Scheduler &s = impl_->ensureScheduler();
  return s.submit(id, std::make_shared<CandidateJob>(*impl_, std::move(job), std::move(done)), block);
}

Scheduler::Cancel Evaluator::cancel(const std::string &id) { return impl_->ensureScheduler().cancel(id); }
void Evaluator::close(bool drain) { impl_->ensureScheduler().close(drain); }
void Evaluator::wait() { impl_->ensureScheduler().wait(); }
SchedulerStats Evaluator::stats() const { return impl_->ensureScheduler().stats(); }

std::vector<Json> Evaluator::run(const std::vector<EvalJob> &jobs,
                                 const std::function<void(size_t, const Json &)> &onResult) {
  std::vector<Json> results(jobs.size());
  std::vector<char> ready(jobs.size(), 0);
  std::mutex mu;
  size_t next = 0;
  std::string prefix = "batch-" + std::to_string(impl_->serial.load()) + "-";
  for (size_t i = 0; i < jobs.size(); ++i)
    submit(prefix + std::to_string(i), jobs[i], [&, i](const Json &result, bool) {
      std::lock_guard<std::mutex> lock(mu);
      results[i] = result;
      ready[i] = 1;
      // In input order, each as soon as it and those before it are known.
      for (; next < jobs.size() && ready[next]; ++next)
        if (onResult)
          onResult(next, results[next]);
    });
  wait();
  return results;
}

} // namespace cudaperf::runtime
