// The evaluator's pipeline: a pool of build threads and one run thread per GPU, fed from one
// bounded queue. A job is built as soon as a build thread is free, in submission order; once
// built it waits for the first free GPU; each GPU runs one job at a time (timings never
// overlap on a device), while builds go on beside the runs. Jobs finish in completion order.
// Independent of what a job is (unit-tested with fake jobs).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cudaperf::runtime {

class ScheduledJob {
public:
  virtual ~ScheduledJob() = default;
  // On a build thread. False: the job is finished without a run (it failed to build, or there is
  // nothing to run).
  virtual bool build() = 0;
  // On the run thread of GPU `device` (an index into the scheduler's devices).
  virtual void run(int device) = 0;
  // Exactly once, after build (and run) or when cancelled before its run began.
  virtual void finish(bool cancelled) = 0;
};

struct SchedulerStats {
  uint64_t submitted = 0, built = 0, ran = 0, finished = 0, cancelled = 0;
  size_t waiting = 0;  // submitted, run not begun (the queue that `queueLimit` bounds)
  size_t building = 0; // inside build() now
  size_t running = 0;  // inside run() now
  std::vector<uint64_t> runsPerDevice;
};

class Scheduler {
public:
  // devices: how many run threads (0: jobs are only built, as with --compile-only).
  Scheduler(int buildThreads, int devices, size_t queueLimit);
  ~Scheduler(); // close(true), then wait()
  Scheduler(const Scheduler &) = delete;
  Scheduler &operator=(const Scheduler &) = delete;

  enum class Submit { Accepted, Duplicate, Closed, Full };
  // Blocks while queueLimit jobs wait (back-pressure), unless `block` is false (then Full).
  // `id` names the job for cancel(); ids of jobs not yet finished must be unique.
  Submit submit(const std::string &id, std::shared_ptr<ScheduledJob> job, bool block = true);

  enum class Cancel { Cancelled, Running, Unknown };
  // A job whose run has not begun is finished as cancelled (if it is being built, once its build
  // returns); a running one goes on.
  Cancel cancel(const std::string &id);

  // Stop accepting; drain: queued jobs still run; otherwise they are cancelled.
  void close(bool drain);
  // Until every submitted job has finished.
  void wait();
  SchedulerStats stats() const;

private:
  struct Entry {
    std::string id;
    std::shared_ptr<ScheduledJob> job;
    bool cancelRequested = false;
    bool buildingNow = false;
    bool runningNow = false;
  };
  void buildLoop();
  void runLoop(int device);
  void finishLocked(std::unique_lock<std::mutex> &lock, const std::shared_ptr<Entry> &e, bool cancelled);

  mutable std::mutex mu_;
  std::condition_variable changed_;
  size_t queueLimit_;
  bool closed_ = false;
  std::deque<std::shared_ptr<Entry>> toBuild_, toRun_;
  std::map<std::string, std::shared_ptr<Entry>> live_;
  int finishing_ = 0; // inside finish() now
  SchedulerStats stats_;
  std::vector<std::thread> threads_;
};

} // namespace cudaperf::runtime
