// What the evaluator keeps per task (and configuration selection) while it runs, and what one
// built candidate carries from its build to its run. Internal to lib/Runtime.
#pragma once

#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Support/Json.h"

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace cudaperf::runtime {

struct TaskEntry {
  std::string dir;
  std::vector<std::string> configs; // the selection (empty: all)
  Task task;
  std::string taskText; // task.json as read
  std::string loadError; // "" when the task is usable
  BuildResult reference; // c-to-cuda: reference.c as a shared object
  BuildResult baseline;
  std::once_flag built;
  // pytorch-to-cuda: the reference's identity (task, exported modules, timing options, program),
  // where its eager timing is cached, or why it cannot run.
  std::string torchKey, torchTimingPath, torchError;
  std::mutex mu; // guards pytorchEager
  support::Json pytorchEager;
};

using Clock = std::chrono::steady_clock;

// A candidate between its build and its result.
struct BuiltCandidate {
  TaskEntry *task = nullptr;
  std::string candidatePath, candidateSha256;
  BuildResult build;
  bool counters = false;
  size_t serial = 0;            // unique within the evaluator (file names)
  Clock::time_point submitted, buildStarted, built;
};

double secondsBetween(Clock::time_point a, Clock::time_point b);

} // namespace cudaperf::runtime
