// Worker processes started ahead of need (`cudaperf-eval-worker --pool`), each creating its CUDA
// context while earlier candidates run, and handed their job oldest first: the oldest has had the
// longest to get ready. One per GPU (DeviceSlot); how many wait is `--spare-workers`
// (docs/eval-result.md). Only the slot's thread uses it.
#pragma once

#include "cudaperf/Support/Subprocess.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace cudaperf::runtime {

class SpareWorkers {
public:
  using Spawn = std::function<support::ChildProcess()>;
  explicit SpareWorkers(Spawn spawn) : spawn_(std::move(spawn)) {}
  ~SpareWorkers() { stopAll(); }
  SpareWorkers(const SpareWorkers &) = delete;
  SpareWorkers &operator=(const SpareWorkers &) = delete;

  // The oldest spare that took `jobLine` on its stdin. One that died waiting (its pipe is closed)
  // is stopped and the next tried; when none is left one is started for the job. Not running()
  // when even that one would not take it.
  support::ChildProcess take(const std::string &jobLine);
  // Starts spares until `count` wait (none are stopped when more wait).
  void fill(size_t count);
  void stopAll();
  size_t size() const { return spares_.size(); }
  std::vector<uint32_t> pids() const;
  size_t started() const { return started_; }

private:
  Spawn spawn_;
  std::deque<support::ChildProcess> spares_; // oldest first
  size_t started_ = 0;

  support::ChildProcess start();
};

} // namespace cudaperf::runtime
