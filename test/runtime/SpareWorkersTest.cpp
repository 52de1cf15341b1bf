// Spare workers with stand-in processes (a shell that reads its job line and writes it out): the
// oldest spare gets the job, spares that died waiting are skipped, a fresh one is started when
// none is left, and fill() keeps the count.
#include "cudaperf/Runtime/SpareWorkers.h"

#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace cudaperf;
using namespace cudaperf::runtime;

namespace {

class SpareWorkersTest : public testing::Test {
protected:
  void SetUp() override {
    signal(SIGPIPE, SIG_IGN); // as the evaluator: a dead spare is an error on write
    dir_ = testing::TempDir() + "/cudaperf-spares-" + std::to_string(getpid());
    ASSERT_EQ(system(("rm -rf " + dir_ + " && mkdir -p " + dir_).c_str()), 0);
  }
  void TearDown() override { (void)system(("rm -rf " + dir_).c_str()); }

  // Each spare numbered by its start; it writes "NUMBER JOB" into its output file.
  SpareWorkers::Spawn spawner() {
    return [this] {
      support::ProcessOptions po;
      po.outputPath = dir_ + "/spare-" + std::to_string(spawned_) + ".out";
      return support::spawnProcess({"/bin/sh", "-c", "read line; echo \"$0 $line\"", std::to_string(spawned_++)}, po,
                                   /*pipeStdin=*/true);
    };
  }
  static std::string finish(support::ChildProcess &w) {
    support::ProcessOptions po;
    po.timeoutSeconds = 10;
    std::string path = w.outputPath;
    support::ProcessResult r = support::superviseProcess(w, po);
    EXPECT_TRUE(r.succeeded()) << r.describe();
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Kills a spare and waits until it is dead, leaving it for the pool to reap.
  static void killAndWait(uint32_t pid) {
    kill(pid_t(pid), SIGKILL);
    siginfo_t info{};
    waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT);
  }

  std::string dir_;
  int spawned_ = 0;
};

} // namespace

TEST_F(SpareWorkersTest, TheOldestSpareGetsTheJob) {
  SpareWorkers spares(spawner());
  spares.fill(3);
  ASSERT_EQ(spares.size(), 3u);
  std::vector<uint32_t> before = spares.pids();
  support::ChildProcess w = spares.take("first\n");
  ASSERT_TRUE(w.running());
  EXPECT_EQ(uint32_t(w.pid), before[0]);
  EXPECT_EQ(spares.size(), 2u);
  EXPECT_EQ(finish(w), "0 first\n");
  support::ChildProcess next = spares.take("second\n");
  EXPECT_EQ(uint32_t(next.pid), before[1]);
  EXPECT_EQ(finish(next), "1 second\n");
  EXPECT_EQ(spares.started(), 3u);
}

TEST_F(SpareWorkersTest, ASpareThatDiedWaitingIsSkipped) {
  SpareWorkers spares(spawner());
  spares.fill(2);
  std::vector<uint32_t> before = spares.pids();
  killAndWait(before[0]);
  support::ChildProcess w = spares.take("job\n");
  ASSERT_TRUE(w.running());
  EXPECT_EQ(uint32_t(w.pid), before[1]);
  EXPECT_EQ(finish(w), "1 job\n");
  EXPECT_EQ(spares.size(), 0u);
  EXPECT_EQ(spares.started(), 2u); // no fresh one was needed
  errno = 0;
  EXPECT_EQ(waitpid(pid_t(before[0]), nullptr, WNOHANG), -1) << "the dead spare was not reaped";
}

TEST_F(SpareWorkersTest, WithNoSpareLeftAFreshOneTakesTheJob) {
  SpareWorkers spares(spawner());
  support::ChildProcess w = spares.take("a\n");
  ASSERT_TRUE(w.running());
  EXPECT_EQ(finish(w), "0 a\n");
  spares.fill(1);
  killAndWait(spares.pids()[0]);
  support::ChildProcess v = spares.take("b\n");
  ASSERT_TRUE(v.running());
  EXPECT_EQ(finish(v), "2 b\n");
  EXPECT_EQ(spares.started(), 3u);
}

TEST_F(SpareWorkersTest, FillKeepsTheCountAndStopsNone) {
  SpareWorkers spares(spawner());
  spares.fill(2);
  support::ChildProcess w = spares.take("x\n");
  spares.fill(2);
  EXPECT_EQ(spares.size(), 2u);
  EXPECT_EQ(spares.started(), 3u);
  spares.fill(1); // fewer wanted: the waiting ones stay
  EXPECT_EQ(spares.size(), 2u);
  finish(w);
  std::vector<uint32_t> pids = spares.pids();
  spares.stopAll();
  EXPECT_EQ(spares.size(), 0u);
  for (uint32_t pid : pids)
    EXPECT_NE(kill(pid_t(pid), 0), 0) << "spare " << pid << " still running after stopAll";
}

TEST_F(SpareWorkersTest, ASpawnThatFailsGivesNoWorker) {
  SpareWorkers spares([] { return support::spawnProcess({"/nonexistent/worker"}, support::ProcessOptions(), true); });
  spares.fill(2);
  EXPECT_EQ(spares.size(), 0u);
  support::ChildProcess w = spares.take("job\n");
  EXPECT_FALSE(w.running());
}
