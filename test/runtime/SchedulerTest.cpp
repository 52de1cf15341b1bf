// The evaluator's pipeline with fake jobs: builds beside runs, one run at a time per GPU,
// completion order, back-pressure, cancellation and shutdown.
#include "cudaperf/Runtime/Scheduler.h"

#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <mutex>
#include <thread>

using namespace cudaperf::runtime;
using namespace std::chrono_literals;

namespace {

struct Log {
  std::mutex mu;
  std::vector<std::string> finished; // in completion order
  std::vector<std::string> cancelled;
  std::atomic<int> building{0}, running{0}, maxRunning{0}, buildsDuringRuns{0};
  std::atomic<int> perDevice[4] = {}, maxPerDevice[4] = {};
};

class FakeJob : public ScheduledJob {
public:
  FakeJob(Log &log, std::string id, std::chrono::milliseconds buildTime, std::chrono::milliseconds runTime,
          bool needsRun = true)
      : log_(log), id_(std::move(id)), buildTime_(buildTime), runTime_(runTime), needsRun_(needsRun) {}
  bool build() override {
    ++log_.building;
    if (log_.running > 0)
      ++log_.buildsDuringRuns;
    std::this_thread::sleep_for(buildTime_);
    --log_.building;
    return needsRun_;
  }
  void run(int device) override {
    int now = ++log_.running;
    int d = ++log_.perDevice[device];
    log_.maxRunning = std::max(log_.maxRunning.load(), now);
    log_.maxPerDevice[device] = std::max(log_.maxPerDevice[device].load(), d);
    std::this_thread::sleep_for(runTime_);
    --log_.perDevice[device];
    --log_.running;
  }
  void finish(bool cancelled) override {
    std::lock_guard<std::mutex> lock(log_.mu);
    (cancelled ? log_.cancelled : log_.finished).push_back(id_);
  }

private:
  Log &log_;
  std::string id_;
  std::chrono::milliseconds buildTime_, runTime_;
  bool needsRun_;
};

// Waits (up to 10 s) until a job is on a device: a fixed sleep is not enough on a loaded machine.
void waitUntilRunning(const Log &log) {
  for (int i = 0; i < 1000 && log.running.load() == 0; ++i)
    std::this_thread::sleep_for(10ms);
}

} // namespace

TEST(Scheduler, OneRunAtATimePerDeviceAndBuildsBesideRuns) {
  Log log;
  {
    Scheduler s(4, 2, 100);
    for (int i = 0; i < 24; ++i)
      ASSERT_EQ(s.submit("j" + std::to_string(i), std::make_shared<FakeJob>(log, "j" + std::to_string(i), 5ms, 10ms)),
                Scheduler::Submit::Accepted);
    s.wait();
    SchedulerStats st = s.stats();
    EXPECT_EQ(st.ran, 24u);
    EXPECT_EQ(st.runsPerDevice[0] + st.runsPerDevice[1], 24u);
    EXPECT_GT(st.runsPerDevice[0], 0u);
    EXPECT_GT(st.runsPerDevice[1], 0u);
  }
  EXPECT_EQ(log.finished.size(), 24u);
  EXPECT_EQ(log.maxPerDevice[0], 1);
  EXPECT_EQ(log.maxPerDevice[1], 1);
  EXPECT_EQ(log.maxRunning, 2);
  EXPECT_GT(log.buildsDuringRuns, 0);
}

TEST(Scheduler, ResultsComeInCompletionOrder) {
  Log log;
  Scheduler s(2, 1, 10);
  s.submit("slow", std::make_shared<FakeJob>(log, "slow", 1ms, 600ms));
  waitUntilRunning(log); // "slow" is running
  s.submit("compile-error", std::make_shared<FakeJob>(log, "compile-error", 1ms, 0ms, false));
  s.submit("quick", std::make_shared<FakeJob>(log, "quick", 1ms, 1ms));
  s.wait();
  ASSERT_EQ(log.finished.size(), 3u);
  EXPECT_EQ(log.finished[0], "compile-error"); // no run: done while "slow" still runs
  EXPECT_EQ(log.finished[1], "slow");
  EXPECT_EQ(log.finished[2], "quick");
}

TEST(Scheduler, BackPressureAndDuplicates) {
  Log log;
  Scheduler s(1, 1, 2);
  EXPECT_EQ(s.submit("a", std::make_shared<FakeJob>(log, "a", 100ms, 100ms)), Scheduler::Submit::Accepted);
  EXPECT_EQ(s.submit("a", std::make_shared<FakeJob>(log, "a", 1ms, 1ms)), Scheduler::Submit::Duplicate);
  EXPECT_EQ(s.submit("b", std::make_shared<FakeJob>(log, "b", 1ms, 1ms)), Scheduler::Submit::Accepted);
  EXPECT_EQ(s.submit("c", std::make_shared<FakeJob>(log, "c", 1ms, 1ms), false), Scheduler::Submit::Full);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(s.submit("c", std::make_shared<FakeJob>(log, "c", 1ms, 1ms)), Scheduler::Submit::Accepted); // blocks
  EXPECT_GE(std::chrono::steady_clock::now() - start, 80ms);
  s.wait();
  EXPECT_EQ(log.finished.size(), 3u);
  // Finished ids can be used again.
  EXPECT_EQ(s.submit("a", std::make_shared<FakeJob>(log, "a", 1ms, 1ms)), Scheduler::Submit::Accepted);
}

TEST(Scheduler, CancelQueuedButNotRunning) {
  Log log;
  Scheduler s(1, 1, 10);
  s.submit("run", std::make_shared<FakeJob>(log, "run", 1ms, 600ms));
  waitUntilRunning(log);
  s.submit("queued", std::make_shared<FakeJob>(log, "queued", 1ms, 1ms));
  std::this_thread::sleep_for(20ms); // built, waiting for the device
  EXPECT_EQ(s.cancel("run"), Scheduler::Cancel::Running);
  EXPECT_EQ(s.cancel("queued"), Scheduler::Cancel::Cancelled);
  EXPECT_EQ(s.cancel("nope"), Scheduler::Cancel::Unknown);
  s.wait();
  EXPECT_EQ(log.finished, std::vector<std::string>{"run"});
  EXPECT_EQ(log.cancelled, std::vector<std::string>{"queued"});
}

TEST(Scheduler, CloseWithoutDrainCancelsTheQueue) {
  Log log;
  Scheduler s(1, 1, 10);
  s.submit("run", std::make_shared<FakeJob>(log, "run", 1ms, 600ms));
  waitUntilRunning(log);
  for (int i = 0; i < 3; ++i)
    s.submit("q" + std::to_string(i), std::make_shared<FakeJob>(log, "q" + std::to_string(i), 1ms, 1ms));
  s.close(false);
  EXPECT_EQ(s.submit("late", std::make_shared<FakeJob>(log, "late", 1ms, 1ms)), Scheduler::Submit::Closed);
  s.wait();
  EXPECT_EQ(log.finished, std::vector<std::string>{"run"});
  EXPECT_EQ(log.cancelled.size(), 3u);
}

TEST(Scheduler, BuildOnlyWithoutDevices) {
  Log log;
  Scheduler s(2, 0, 10);
  for (int i = 0; i < 5; ++i)
    s.submit(std::to_string(i), std::make_shared<FakeJob>(log, std::to_string(i), 2ms, 1000ms));
  s.wait();
  EXPECT_EQ(log.finished.size(), 5u);
  EXPECT_EQ(s.stats().ran, 0u);
}
