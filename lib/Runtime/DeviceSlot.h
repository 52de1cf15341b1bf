// One GPU of the evaluator: its data holder and the task data it keeps there (least recently
// used first out, within a memory budget), the next workers already started with their CUDA
// contexts (--spare-workers), the baseline timings it may reuse, and the run of one built
// candidate at a time.
// Internal to lib/Runtime.
#pragma once

#include "EvalTask.h"
#include "HolderClient.h"

#include "cudaperf/Runtime/Evaluator.h"
#include "cudaperf/Runtime/SpareWorkers.h"
#include "cudaperf/Support/Subprocess.h"

#include <map>
#include <memory>
#include <string>

namespace cudaperf::runtime {

class DeviceSlot {
public:
  DeviceSlot(const EvalOptions &options, const Toolchain &toolchain, support::Json device);
  ~DeviceSlot();
  DeviceSlot(const DeviceSlot &) = delete;
  DeviceSlot &operator=(const DeviceSlot &) = delete;

  // The result document of one built candidate (only this slot's thread calls it). `waiting`:
  // candidates submitted and not yet running, so spares are started only for work to come.
  support::Json run(BuiltCandidate &candidate, size_t waiting = 0);
  const support::Json &device() const { return device_; }

private:
  struct TaskData {
    std::string manifest;
    uint64_t bytes = 0;
    uint64_t lastUse = 0;
    uint64_t holderGeneration = 0;
  };
  struct BaselineTiming {
    std::string file;
    int uses = 0;
  };

  const EvalOptions &options_;
  const Toolchain &toolchain_;
  support::Json device_;
  int index_ = 0;
  std::string uuid_;
  std::vector<std::string> env_;
  HolderClient holder_;
  std::map<std::string, TaskData> data_;
  std::map<std::string, BaselineTiming> baselines_;
  uint64_t useClock_ = 0;
  size_t spawned_ = 0;
  SpareWorkers spares_; // after everything its workers' start uses

  // "" and the manifest, or why the task's data is not on the device.
  std::string ensureData(TaskEntry &task, std::string &key, std::string &manifest, support::Json &report);
  void releaseData(const std::string &key);
  std::string dataKey(const TaskEntry &task) const;
  std::vector<std::string> isolationArgs() const; // --isolation ... for the worker
  support::ChildProcess startWorker(const std::vector<std::string> &argv, bool pool);
  support::ProcessResult runWorker(const std::vector<std::string> &argv, const std::string &events,
                                   size_t waiting, std::vector<uint32_t> &ourPids, std::vector<GpuSample> &samples);
  void keepBaselineTiming(const std::string &key, const std::string &events);
};

} // namespace cudaperf::runtime
