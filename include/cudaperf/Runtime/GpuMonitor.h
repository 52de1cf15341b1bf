// What else used a GPU while a candidate ran: NVML (loaded with dlopen, so nothing links it and a
// machine without it only loses this report) sampled on a thread of the evaluator during each
// worker run. The samples are summarized against the evaluator's own processes (worker, data
// holder, spare workers): anything else is another process, and the result is marked
// "gpu_shared" (docs/eval-result.md).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace cudaperf::runtime {

struct GpuProcessSample {
  uint32_t pid = 0;
  uint64_t usedBytes = 0; // NVML's usedGpuMemory (0 where the driver does not say)
  uint32_t parentPid = 0; // from /proc when it was sampled (0 unknown): a worker's runner is its child
};

struct GpuSample {
  double t = 0; // seconds since the recording started
  std::vector<GpuProcessSample> processes;
  int utilizationGpu = -1; // percent over NVML's last sample period, -1 unknown
  int utilizationMemory = -1;
  uint64_t memoryUsedBytes = 0;
};

struct OtherProcess {
  uint32_t pid = 0;
  std::string name; // /proc/<pid>/comm where visible
  uint64_t maxBytes = 0;
  int samples = 0; // in how many samples it appeared
};

struct GpuSharing {
  bool available = false; // NVML answered
  std::string reason;     // why not
  bool shared = false;    // another process used the GPU during the run
  bool pidsMatched = true; // false: NVML's PIDs are of another PID namespace (a container)
  int samples = 0;
  int maxProcesses = 0;
  std::vector<OtherProcess> others;
  int utilizationMax = -1;
  double utilizationMean = -1;
  uint64_t memoryUsedMaxBytes = 0;
};

// The pure part, unit-tested: which processes were not ours. With PIDs from another namespace
// (none of ours seen although ours ran) only counts can be compared: more processes than ours
// means someone else was there.
GpuSharing summarizeSharing(const std::vector<GpuSample> &samples, const std::set<uint32_t> &ourPids,
                            size_t ourProcessCount);

// NVML through dlopen("libnvidia-ml.so.1"); one per process.
class Nvml {
public:
  static Nvml &instance();
  bool available() const { return handle_ != nullptr; }
  const std::string &reason() const { return reason_; }
  // A device by its UUID ("GPU-xxxxxxxx-..."), null if unknown.
  void *device(const std::string &uuid);
  bool sample(void *device, GpuSample &out);

private:
  Nvml();
  void *handle_ = nullptr;
  std::string reason_;
  std::mutex mu_;
};

// Samples one device every `period` seconds between start() and stop().
class GpuActivityRecorder {
public:
  explicit GpuActivityRecorder(const std::string &uuid, double periodSeconds = 0.05);
  ~GpuActivityRecorder();
  void start();
  std::vector<GpuSample> stop();
  bool available() const { return device_ != nullptr; }

private:
  void *device_ = nullptr;
  double period_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable stopped_; // wakes the sampling thread at once: stop() is on the GPU's time
  std::vector<GpuSample> samples_;
};

} // namespace cudaperf::runtime
