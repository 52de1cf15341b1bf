#include "cudaperf/Runtime/GpuMonitor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <map>

namespace cudaperf::runtime {

namespace {

std::string processName(uint32_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// NVML's C interface, as documented (nvml.h is not part of the CUDA toolkit here).
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0, kNvmlInsufficientSize = 7;
// nvmlDeviceGetComputeRunningProcesses_v2 fills nvmlProcessInfo_v2_t; _v3's struct gained a field
// (usedGpuCcProtectedMemory) in newer NVML headers. _v2 is used where the library still exports it
// (its layout never changed), _v3 with the longer layout otherwise.
struct NvmlProcessInfoV2 {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
struct NvmlProcessInfoV3 {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
  unsigned long long usedGpuCcProtectedMemory;
};
struct NvmlUtilization {
  unsigned int gpu, memory;
};
struct NvmlMemory {
  unsigned long long total, free, used;
};
using InitFn = NvmlReturn (*)();
using ByUuidFn = NvmlReturn (*)(const char *, void **);
using ProcessesV2Fn = NvmlReturn (*)(void *, unsigned int *, NvmlProcessInfoV2 *);
using ProcessesV3Fn = NvmlReturn (*)(void *, unsigned int *, NvmlProcessInfoV3 *);

// The parent of a process, from /proc/<pid>/stat (0 where it cannot be read).
uint32_t parentOf(uint32_t pid) {
  FILE *f = fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f)
    return 0;
  char buf[512];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses; the last ')' ends it.
  const char *close = strrchr(buf, ')');
  unsigned ppid = 0;
  char state;
  return close && sscanf(close + 1, " %c %u", &state, &ppid) == 2 ? ppid : 0;
}

// The compute processes on a device, through one version of the call.
template <typename Info, typename Fn> bool listProcesses(Fn fn, void *device, std::vector<GpuProcessSample> &out) {
  std::vector<Info> infos(64);
  unsigned int n = unsigned(infos.size());
  NvmlReturn r = fn(device, &n, infos.data());
  if (r == kNvmlInsufficientSize) {
    infos.resize(n + 16);
    n = unsigned(infos.size());
    r = fn(device, &n, infos.data());
  }
  if (r != kNvmlSuccess)
    return false;
  for (unsigned i = 0; i < n && i < infos.size(); ++i)
    out.push_back({infos[i].pid, infos[i].usedGpuMemory == ~0ull ? 0 : infos[i].usedGpuMemory, parentOf(infos[i].pid)});
  return true;
}
using UtilizationFn = NvmlReturn (*)(void *, NvmlUtilization *);
using MemoryFn = NvmlReturn (*)(void *, NvmlMemory *);

} // namespace

GpuSharing summarizeSharing(const std::vector<GpuSample> &samples, const std::set<uint32_t> &ourPids,
                            size_t ourProcessCount) {
  GpuSharing s;
  s.available = true;
  s.samples = int(samples.size());
  bool anyOurs = false, anyProcess = false;
  for (const GpuSample &g : samples)
    for (const GpuProcessSample &p : g.processes) {
      anyProcess = true;
      anyOurs = anyOurs || ourPids.count(p.pid) || ourPids.count(p.parentPid);
    }
  s.pidsMatched = !anyProcess || anyOurs;
  std::map<uint32_t, OtherProcess> others;
  double utilSum = 0;
  int utilCount = 0;
  for (const GpuSample &g : samples) {
    s.maxProcesses = std::max(s.maxProcesses, int(g.processes.size()));
    s.memoryUsedMaxBytes = std::max(s.memoryUsedMaxBytes, g.memoryUsedBytes);
    if (g.utilizationGpu >= 0) {
      s.utilizationMax = std::max(s.utilizationMax, g.utilizationGpu);
      utilSum += g.utilizationGpu;
      ++utilCount;
    }
    if (!s.pidsMatched)
      continue;
    for (const GpuProcessSample &p : g.processes) {
      // A worker's candidate runner is its child: ours too.
      if (ourPids.count(p.pid) || (p.parentPid && ourPids.count(p.parentPid)))
        continue;
      OtherProcess &o = others[p.pid];
      o.pid = p.pid;
      o.maxBytes = std::max(o.maxBytes, p.usedBytes);
      ++o.samples;
    }
  }
  if (utilCount)
    s.utilizationMean = utilSum / utilCount;
  for (auto &[pid, o] : others) {
    o.name = processName(pid);
    s.others.push_back(o);
  }
  s.shared = s.pidsMatched ? !s.others.empty() : size_t(s.maxProcesses) > ourProcessCount;
  return s;
}

Nvml &Nvml::instance() {
  static Nvml nvml;
  return nvml;
}

Nvml::Nvml() {
  void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    reason_ = std::string("libnvidia-ml.so.1 not loaded: ") + dlerror();
    return;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(h, "nvmlInit_v2"));
  if (!init || init() != kNvmlSuccess) {
    reason_ = "nvmlInit_v2 failed";
    return;
  }
  handle_ = h;
}

void *Nvml::device(const std::string &uuid) {
  if (!handle_)
    return nullptr;
  auto byUuid = reinterpret_cast<ByUuidFn>(dlsym(handle_, "nvmlDeviceGetHandleByUUID"));
  void *dev = nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  if (!byUuid || byUuid(uuid.c_str(), &dev) != kNvmlSuccess)
    return nullptr;
  return dev;
}

bool Nvml::sample(void *device, GpuSample &out) {
  if (!handle_ || !device)
    return false;
  static auto processesV2 = reinterpret_cast<ProcessesV2Fn>(dlsym(handle_, "nvmlDeviceGetComputeRunningProcesses_v2"));
  static auto processesV3 = reinterpret_cast<ProcessesV3Fn>(dlsym(handle_, "nvmlDeviceGetComputeRunningProcesses_v3"));
  static auto utilization = reinterpret_cast<UtilizationFn>(dlsym(handle_, "nvmlDeviceGetUtilizationRates"));
  static auto memory = reinterpret_cast<MemoryFn>(dlsym(handle_, "nvmlDeviceGetMemoryInfo"));
  std::lock_guard<std::mutex> lock(mu_);
  if (processesV2)
    listProcesses<NvmlProcessInfoV2>(processesV2, device, out.processes);
  else if (processesV3)
    listProcesses<NvmlProcessInfoV3>(processesV3, device, out.processes);
  NvmlUtilization u{};
  if (utilization && utilization(device, &u) == kNvmlSuccess) {
    out.utilizationGpu = int(u.gpu);
    out.utilizationMemory = int(u.memory);
  }
  NvmlMemory m{};
  if (memory && memory(device, &m) == kNvmlSuccess)
    out.memoryUsedBytes = m.used;
  return true;
}

GpuActivityRecorder::GpuActivityRecorder(const std::string &uuid, double periodSeconds)
    : device_(Nvml::instance().device(uuid)), period_(periodSeconds) {}

GpuActivityRecorder::~GpuActivityRecorder() { stop(); }

void GpuActivityRecorder::start() {
  if (!device_ || running_)
    return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    samples_.clear();
  }
  running_ = true;
  thread_ = std::thread([this] {
    auto begin = std::chrono::steady_clock::now();
    while (running_) {
      GpuSample s;
      if (Nvml::instance().sample(device_, s)) {
        s.t = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        std::lock_guard<std::mutex> lock(mu_);
        samples_.push_back(std::move(s));
      }
      std::unique_lock<std::mutex> lock(mu_);
      stopped_.wait_for(lock, std::chrono::duration<double>(period_), [this] { return !running_; });
    }
  });
}

std::vector<GpuSample> GpuActivityRecorder::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = false;
  }
  stopped_.notify_all();
  if (thread_.joinable())
    thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  return samples_;
}

} // namespace cudaperf::runtime
