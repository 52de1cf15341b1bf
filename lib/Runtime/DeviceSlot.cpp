#include "DeviceSlot.h"

#include "cudaperf/Runtime/CountersMode.h"
#include "cudaperf/Runtime/CounterRng.h"
#include "cudaperf/Runtime/DeviceData.h"
#include "cudaperf/Runtime/GpuMonitor.h"
#include "cudaperf/Schema/EvalResult.h"
#include "cudaperf/Schema/Outcome.h"
#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/Sha256.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>
#include <unistd.h>

namespace cudaperf::runtime {

using support::Json;
using support::member;

namespace {

const char *kDoneMarker = "\"event\":\"done\"";

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "" : ",") + n;
  return out;
}

uint64_t deviceMemory(const Json &device) {
  const Json *m = member(device, "memory_bytes");
  return m && m->is_number_unsigned() ? m->get<uint64_t>() : m && m->is_number() ? uint64_t(m->get<double>()) : 0;
}

// The worker's and the holder's environment: their GPU alone (device 0 for them), launches
// asynchronous and the work queues set, whatever the caller's environment says (timing depends on both).
std::vector<std::string> workerEnvironment(const std::string &uuid, int maxConnections) {
  std::vector<std::string> env = {"CUDA_LAUNCH_BLOCKING=0",
                                  "CUDA_DEVICE_MAX_CONNECTIONS=" + std::to_string(maxConnections)};
  if (!uuid.empty())
    env.push_back("CUDA_VISIBLE_DEVICES=" + uuid);
  return env;
}

} // namespace

double secondsBetween(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

DeviceSlot::DeviceSlot(const EvalOptions &options, const Toolchain &toolchain, Json device)
    : options_(options), toolchain_(toolchain), device_(std::move(device)),
      index_(device_.value("index", 0)), uuid_(device_.value("uuid", std::string())),
      env_(workerEnvironment(uuid_, options.maxConnections)),
      holder_(options.workerPath, env_, options.workDir + "/holder-" + std::to_string(index_) + ".log"),
      spares_([this] { return startWorker({}, true); }) {}

DeviceSlot::~DeviceSlot() {
  spares_.stopAll();
  support::backgroundReaper().drain(); // no worker maps the holder's data when it goes
}

std::string DeviceSlot::dataKey(const TaskEntry &t) const {
  support::Sha256 key;
  key.field("device-data/1").field(kGeneratorVersion).field(t.dir).field(t.taskText).field(joined(t.configs))
      .field(std::to_string(options_.seed)).field(std::to_string(options_.sets));
  key.field(t.task.kind == TaskKind::PyTorchToCuda ? t.torchKey : t.reference.objectPath);
  return key.hex().substr(0, 32);
}

void DeviceSlot::releaseData(const std::string &key) {
  // A worker killed a moment ago may still have the data mapped while its process ends.
  support::backgroundReaper().drain();
  std::string error;
  if (holder_.pid() > 0) // a holder that is gone holds nothing
    holder_.request(schema::holder::requestToJson(schema::holder::Request::make(schema::holder::Release{}, key)), 60,
                    error);
  auto it = data_.find(key);
  if (it != data_.end()) {
    unlink(it->second.manifest.c_str());
    data_.erase(it);
  }
}

std::string DeviceSlot::ensureData(TaskEntry &t, std::string &key, std::string &manifest, Json &report) {
  key = dataKey(t);
  auto it = data_.find(key);
  if (it != data_.end() && it->second.holderGeneration == holder_.generation() && holder_.pid() > 0) {
    it->second.lastUse = ++useClock_;
    manifest = it->second.manifest;
    report = Json{{"cached", true}};
    return "";
  }
  // Whatever an earlier holder had is gone with it.
  for (auto d = data_.begin(); d != data_.end();)
    d = d->second.holderGeneration == holder_.generation() && holder_.pid() > 0 ? std::next(d) : data_.erase(d);
  // Room for it: least recently used tasks go first.
  uint64_t need = 0;
  for (const Config &c : t.task.configs)
    need += uint64_t(options_.sets) * layoutSet(t.task, c).slabBytes;
  uint64_t limit = uint64_t(options_.deviceDataFraction * double(deviceMemory(device_)));
  auto used = [&] {
    uint64_t u = 0;
    for (const auto &kv : data_)
      u += kv.second.bytes;
    return u;
  };
  while (!data_.empty() && used() + need > limit) {
    auto lru = std::min_element(data_.begin(), data_.end(),
                                [](const auto &a, const auto &b) { return a.second.lastUse < b.second.lastUse; });
    releaseData(lru->first);
  }
  manifest = options_.workDir + "/data-" + std::to_string(index_) + "-" + key + ".json";
  schema::holder::Prepare req;
  req.taskDir = t.dir;
  req.configs = t.configs;
  req.seed = options_.seed;
  req.sets = options_.sets;
  req.manifest = manifest;
  req.memoryWaitSeconds = options_.memoryWaitSeconds;
  req.setCacheLimitBytes = options_.setCacheLimitBytes;
  if (options_.build.useCache) {
    std::string dir = options_.build.cacheDir + "/data";
    if (makeDirs(dir))
      req.setCache = dir;
  }
  if (t.task.kind == TaskKind::PyTorchToCuda) {
    if (!t.torchError.empty())
      return t.torchError;
    std::vector<std::string> args = {"--task", t.dir, "--seed", std::to_string(options_.seed), "--sets",
                                     std::to_string(options_.sets), "--warmup", std::to_string(options_.warmup),
                                     "--min-runs", std::to_string(options_.minRuns), "--max-runs",
                                     std::to_string(options_.maxRuns), "--budget-ms", std::to_string(options_.budgetMs)};
    if (options_.timing)
      args.insert(args.end(), {"--timing-out", t.torchTimingPath});
    else
      args.push_back("--no-timing");
    if (!t.configs.empty())
      args.insert(args.end(), {"--configs", joined(t.configs)});
    req.referenceId = t.torchKey;
    schema::holder::TorchReference &torch = req.torch.emplace();
    torch.program = options_.torchReferencePath;
    torch.args = args;
    torch.timingPath = options_.timing ? t.torchTimingPath : std::string();
    torch.timeoutSeconds = options_.torchTimeoutSeconds;
    torch.logPath = options_.workDir + "/torch-reference-" + std::to_string(index_) + ".log";
  } else {
    req.referenceSo = t.reference.objectPath;
    req.referenceId = t.reference.objectPath; // its path names its build
  }
  std::string error;
  Json answer = holder_.request(schema::holder::requestToJson(schema::holder::Request::make(std::move(req), key)),
                                options_.torchTimeoutSeconds + 60, error);
  if (!error.empty())
    return error;
  schema::holder::Answer typed;
  try {
    typed = schema::holder::answerFromJson(answer, "the data holder's answer");
  } catch (const support::SupportError &e) {
    return e.what();
  }
  const schema::holder::Prepared *prepared = typed.as<schema::holder::Prepared>();
  if (!prepared) {
    const schema::holder::Failed *failed = typed.as<schema::holder::Failed>();
    return failed && failed->detail ? *failed->detail : support::writeJson(answer);
  }
  TaskData d;
  d.manifest = manifest;
  d.bytes = prepared->bytes.value_or(need);
  d.lastUse = ++useClock_;
  d.holderGeneration = holder_.generation();
  data_[key] = d;
  report = answer;
  report.erase("op");
  report.erase("key");
  report.erase("manifest");
  report["cached"] = false;
  if (t.task.kind == TaskKind::PyTorchToCuda && options_.timing) {
    std::lock_guard<std::mutex> lock(t.mu);
    std::string text;
    if (!t.pytorchEager.is_object() && readFile(t.torchTimingPath, text)) {
      try {
        t.pytorchEager = support::parseJson(text, t.torchTimingPath);
      } catch (const std::exception &e) {
        return e.what();
      }
    }
    if (!t.pytorchEager.is_object())
      return "cudaperf-torch-reference wrote no timing (" + t.torchTimingPath + ")";
  }
  return "";
}

support::ChildProcess DeviceSlot::startWorker(const std::vector<std::string> &argv, bool pool) {
  support::ProcessOptions po;
  po.outputPath = options_.workDir + "/worker-" + std::to_string(index_) + "-" + std::to_string(++spawned_) + ".log";
  po.fileSizeLimit = options_.outputLimitBytes;
  po.extraEnv = env_; // whatever the caller's environment says, launches stay asynchronous
  // The isolation is known before the job: a pool worker starts the candidate's process ahead.
  std::vector<std::string> poolArgv = {options_.workerPath, "--pool"};
  for (const std::string &a : isolationArgs())
    poolArgv.push_back(a);
  return support::spawnProcess(pool ? poolArgv : argv, po, pool);
}

std::vector<std::string> DeviceSlot::isolationArgs() const {
  std::vector<std::string> a = {"--isolation", options_.isolation, "--runner-cpu-seconds",
                                std::to_string(int64_t(std::max(1.0, options_.timeoutSeconds)))};
  if (options_.allowWeakSandbox)
    a.push_back("--allow-weak-sandbox");
  return a;
}

support::ProcessResult DeviceSlot::runWorker(const std::vector<std::string> &argv, const std::string &events,
                                             size_t waiting, std::vector<uint32_t> &ourPids,
                                             std::vector<GpuSample> &samples) {
  // Workers of ours still ending (reaped in the background) may show on the GPU during this run.
  for (int pid : support::backgroundReaper().pending())
    ourPids.push_back(uint32_t(pid));
  support::ChildProcess worker;
  if (options_.spareWorkers > 0) {
    // The oldest spare gets the job; new spares start now, beside this run: as many as there is
    // work for (at least one, so the next request does not wait for a context either).
    schema::PoolJob job;
    job.argv.assign(argv.begin() + 1, argv.end());
    job.handedAt = std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
    worker = spares_.take(support::writeJson(schema::poolJobToJson(job)) + "\n");
    spares_.fill(std::clamp<size_t>(waiting, 1, size_t(options_.spareWorkers)));
    for (uint32_t pid : spares_.pids())
      ourPids.push_back(pid);
  }
  if (!worker.running())
    worker = startWorker(argv, false);
  if (worker.running())
    ourPids.push_back(uint32_t(worker.pid));
  GpuActivityRecorder recorder(uuid_, options_.gpuSamplePeriodSeconds);
  recorder.start();
  support::ProcessOptions po;
  po.timeoutSeconds = options_.timeoutSeconds;
  po.maxCapturedBytes = 4096;
  po.progressPath = events;
  po.stallSeconds = options_.stallSeconds;
  po.doneMarker = kDoneMarker;
  po.reapInBackground = !options_.waitWorkerExit;
  std::string log = worker.outputPath;
  support::ProcessResult r = support::superviseProcess(worker, po);
  samples = recorder.stop();
  if (!log.empty())
    unlink(log.c_str());
  return r;
}

void DeviceSlot::keepBaselineTiming(const std::string &key, const std::string &events) {
  if (options_.baselineReuse <= 0 || baselines_.count(key))
    return;
  std::string out;
  bool ok = false;
  int timings = 0;
  for (const schema::WorkerEvent &e : schema::readWorkerEvents(events)) {
    if (e.impl != "baseline")
      continue;
    // The baseline's own timings (not lines an earlier worker's file gave it), as written.
    if (e.is<schema::events::Timing>() && !schema::workerEventPayload(e).contains("cached")) {
      out += support::writeJson(schema::workerEventToJson(e)) + "\n";
      ++timings;
    }
    if (const schema::events::Verdict *v = e.as<schema::events::Verdict>())
      ok = v->outcome && schema::parseOutcome(*v->outcome) == schema::Outcome::Ok;
  }
  if (!ok || timings == 0)
    return;
  std::string file = options_.workDir + "/baseline-" + std::to_string(index_) + "-" + key + ".jsonl";
  if (writeFile(file, out))
    baselines_[key] = {file, 0};
}

Json DeviceSlot::run(BuiltCandidate &c, size_t waiting) {
  TaskEntry &t = *c.task;
  Clock::time_point acquired = Clock::now();
  Json stages = Json::object();
  stages["queued"] = secondsBetween(c.submitted, c.buildStarted);
  stages["build"] = secondsBetween(c.buildStarted, c.built);
  stages["wait_for_device"] = secondsBetween(c.built, acquired);

  EvalRecord rec;
  rec.task = &t.task;
  rec.candidatePath = c.candidatePath;
  rec.candidateSha256 = c.candidateSha256;
  rec.arch = options_.arch;
  rec.candidateBuild = c.build;
  rec.seed = options_.seed;
  rec.sets = options_.sets;
  rec.stallSeconds = options_.stallSeconds;
  rec.counters = c.counters;
  rec.maxConnections = options_.maxConnections;
  rec.toolchain = &toolchain_;

  std::string key, manifest;
  Json dataReport;
  std::string dataError = ensureData(t, key, manifest, dataReport);
  Clock::time_point dataReady = Clock::now();
  stages["task_data"] = secondsBetween(acquired, dataReady);
  if (!dataError.empty()) {
    return schema::EvalResult::taskDataFailed(t.task.name, t.dir, c.candidatePath,
                                              "the task's data could not be prepared on GPU " +
                                                  std::to_string(index_) + ": " + dataError,
                                              stages)
        .toJson();
  }

  std::string baselineKey = key + support::Sha256().field(t.baseline.objectPath).field(std::to_string(options_.warmup))
                                      .field(std::to_string(options_.minRuns)).field(std::to_string(options_.maxRuns))
                                      .field(std::to_string(options_.budgetMs)).hex().substr(0, 16);
  std::string events = options_.workDir + "/worker-" + std::to_string(c.serial) + ".events";
  std::vector<std::string> argv = {options_.workerPath, "--events", events, "--task", t.dir, "--device-data", manifest,
                                   "--candidate", c.build.objectPath,
                                   "--seed", std::to_string(options_.seed), "--sets", std::to_string(options_.sets),
                                   "--warmup", std::to_string(options_.warmup),
                                   "--min-runs", std::to_string(options_.minRuns),
                                   "--max-runs", std::to_string(options_.maxRuns),
                                   "--budget-ms", std::to_string(options_.budgetMs),
                                   "--device-index", std::to_string(index_),
                                   "--memory-wait", std::to_string(options_.memoryWaitSeconds),
                                   "--leak-limit-mib", std::to_string(options_.leakLimitMiB)};
  for (const std::string &a : isolationArgs())
    argv.push_back(a);
  bool hasBaseline = !t.baseline.objectPath.empty();
  if (hasBaseline)
    argv.insert(argv.end(), {"--baseline", t.baseline.objectPath});
  if (!options_.timing)
    argv.push_back("--no-timing");
  for (const std::string &a : workerCounterArgs(c.counters, options_.countersMode, options_.countersRanges))
    argv.push_back(a); // "--counters" [--counters-mode MODE] [--counters-ranges N|auto]
  if (!t.configs.empty())
    argv.insert(argv.end(), {"--configs", joined(t.configs)});
  auto reuse = hasBaseline ? baselines_.find(baselineKey) : baselines_.end();
  if (reuse != baselines_.end() && reuse->second.uses < options_.baselineReuse && options_.timing) {
    argv.insert(argv.end(), {"--baseline-timing", reuse->second.file});
    ++reuse->second.uses;
  } else if (reuse != baselines_.end()) {
    unlink(reuse->second.file.c_str()); // used up: the next worker times the baseline again
    baselines_.erase(reuse);
  }

  std::vector<GpuSample> samples;
  std::vector<uint32_t> ourPids;
  for (int attempt = 0;; ++attempt) {
    unlink(events.c_str());
    ourPids.assign({uint32_t(getpid())});
    if (holder_.pid() > 0)
      ourPids.push_back(uint32_t(holder_.pid()));
    rec.worker = runWorker(argv, events, waiting, ourPids, samples);
    rec.workerRan = rec.worker.started;
    if (!rec.worker.started)
      rec.worker.output = rec.worker.startError;
    rec.events.clear();
    readFile(events, rec.events);
    // A worker that could not start because the device was full for a moment starts again.
    if (attempt >= options_.setupRetries || !retryableSetupError(rec.events))
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(4000, 500 * (attempt + 1))));
  }
  Clock::time_point workerDone = Clock::now();
  stages["worker"] = secondsBetween(dataReady, workerDone);

  std::set<uint32_t> ours(ourPids.begin(), ourPids.end());
  // Our processes with a context here: all of ours but the evaluator itself.
  // Where NVML's pids cannot be matched, counts are compared: with isolation every worker of ours
  // has a candidate runner with a context of its own beside it (the holder has none).
  size_t contexts = ours.size() - 1;
  if (options_.isolation != "none")
    contexts += ours.size() - 1 - (holder_.pid() > 0 ? 1 : 0);
  GpuSharing sharing = Nvml::instance().available() ? summarizeSharing(samples, ours, contexts) : GpuSharing();
  if (!Nvml::instance().available())
    sharing.reason = Nvml::instance().reason();
  rec.sharing = &sharing;
  {
    std::lock_guard<std::mutex> lock(t.mu);
    if (t.task.kind == TaskKind::PyTorchToCuda && t.pytorchEager.is_object())
      rec.pytorchEager = &t.pytorchEager;
    rec.evaluationSeconds = c.build.seconds + secondsBetween(acquired, workerDone);
    rec.stageSeconds = stages;
    Json doc = assembleResult(rec);
    doc["task_data"] = dataReport;
    keepBaselineTiming(baselineKey, rec.events);
    // The candidate wrote into the shared task data: it is prepared afresh for the next one.
    if (const Json *w = member(doc, "worker"))
      if (const Json *intact = member(*w, "shared_data_intact"); intact && intact->is_boolean() && !intact->get<bool>())
        releaseData(key);
    unlink(events.c_str());
    // What of the worker's time was spent waiting for a CUDA context, and the GPU's whole time on
    // this candidate: the figures the rate of a slot depends on (docs/eval-result.md).
    Json &docStages = doc["stage_seconds"];
    if (const Json *w = member(doc, "worker"))
      if (const Json *ws = member(*w, "stage_seconds"))
        if (const Json *wait = member(*ws, "context_wait"); wait && wait->is_number())
          docStages["worker_context_wait"] = *wait;
    docStages["device_slot"] = secondsBetween(acquired, Clock::now());
    return doc;
  }
}

} // namespace cudaperf::runtime
