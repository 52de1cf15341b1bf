#include "cudaperf/Support/Subprocess.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace cudaperf::support;

TEST(Subprocess, ExitStatusAndOutput) {
  ProcessOptions o;
  ProcessResult r = runProcess({"/bin/sh", "-c", "echo hello; echo err >&2; exit 3"}, o);
  ASSERT_TRUE(r.started);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.output, "hello\nerr\n");
  EXPECT_EQ(r.describe(), "exit status 3");
}

TEST(Subprocess, SignalIsReported) {
  ProcessResult r = runProcess({"/bin/sh", "-c", "kill -SEGV $$"}, ProcessOptions());
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.signal, SIGSEGV);
}

TEST(Subprocess, TimeoutKillsTheWholeGroup) {
  std::string marker = testing::TempDir() + "/cudaperf-orphan-" + std::to_string(getpid());
  unlink(marker.c_str());
  ProcessOptions o;
  o.timeoutSeconds = 0.3;
  // The grandchild would write the marker after 1 s if it survived its parent's kill.
  ProcessResult r = runProcess({"/bin/sh", "-c", "(sleep 1; touch " + marker + ") & sleep 30"}, o);
  EXPECT_TRUE(r.timedOut);
  EXPECT_LT(r.seconds, 5.0);
  sleep(2);
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "a process of the group outlived the timeout";
}

TEST(Subprocess, StalledProgressFileIsATimeout) {
  std::string progress = testing::TempDir() + "/cudaperf-progress-" + std::to_string(getpid());
  ProcessOptions o;
  o.timeoutSeconds = 30;
  o.progressPath = progress;
  o.stallSeconds = 0.5;
  ProcessResult r = runProcess({"/bin/sh", "-c", "for i in 1 2 3 4; do echo x >> " + progress + "; sleep 0.2; done; sleep 30"}, o);
  EXPECT_TRUE(r.timedOut);
  EXPECT_TRUE(r.stalled);
  EXPECT_GT(r.seconds, 0.8);
  EXPECT_LT(r.seconds, 5.0);
  unlink(progress.c_str());
}

TEST(Subprocess, OutputIsCappedWithoutKillingTheChild) {
  ProcessOptions o;
  o.fileSizeLimit = 100000;
  o.maxCapturedBytes = 1000;
  ProcessResult r = runProcess({"/bin/sh", "-c", "yes 0123456789 | head -c 5000000; echo done >&2; exit 0"}, o);
  EXPECT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(r.outputBytes, 100000u);
  EXPECT_EQ(r.output.size(), 1000u);
  EXPECT_TRUE(r.outputTruncated);
}

TEST(Subprocess, MissingProgramIsAStartError) {
  ProcessResult r = runProcess({"/nonexistent/program"}, ProcessOptions());
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.startError.find("No such file"), std::string::npos) << r.startError;
}

TEST(Subprocess, SpawnedChildGetsItsJobOnStdinAndAnswersOnStdout) {
  ProcessOptions o;
  ChildProcess c = spawnProcess({"/bin/sh", "-c", "read job; echo \"got $job\"; echo oops >&2"}, o, true, true);
  ASSERT_TRUE(c.running()) << c.startError;
  std::string job = "hello\n";
  ASSERT_EQ(write(c.stdinFd, job.data(), job.size()), ssize_t(job.size()));
  char buf[64] = {};
  ssize_t n = read(c.stdoutFd, buf, sizeof buf - 1);
  EXPECT_EQ(std::string(buf, n > 0 ? size_t(n) : 0), "got hello\n");
  ProcessResult r = superviseProcess(c, o);
  EXPECT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(r.output, "oops\n"); // stderr still goes to the output file
  EXPECT_FALSE(c.running());
}

namespace {

// A child that writes the worker's done marker into its progress file, then lingers for 20 s.
struct DoneMarkerChild {
  std::string progress;
  ProcessOptions options;
  explicit DoneMarkerChild(const std::string &name) {
    progress = testing::TempDir() + "/cudaperf-" + name + "-" + std::to_string(getpid());
    unlink(progress.c_str());
    options.timeoutSeconds = 30;
    options.progressPath = progress;
    options.doneMarker = "\"event\":\"done\"";
  }
  ~DoneMarkerChild() { unlink(progress.c_str()); }
  std::vector<std::string> argv() const {
    return {"/bin/sh", "-c", "echo '{\"event\":\"done\"}' >> " + progress + "; sleep 20"};
  }
  // Supervised: its pid, the result within 5 s.
  int supervise(ProcessResult &r) {
    ChildProcess c = spawnProcess(argv(), options);
    EXPECT_TRUE(c.running());
    int pid = c.pid;
    r = superviseProcess(c, options);
    EXPECT_TRUE(r.succeeded()) << r.describe();
    EXPECT_LT(r.seconds, 5.0);
    EXPECT_FALSE(c.running());
    return pid;
  }
};

bool contains(const std::vector<int> &pids, int pid) { return std::find(pids.begin(), pids.end(), pid) != pids.end(); }

bool reapedAlready(int pid) {
  int status = 0;
  errno = 0;
  return waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD;
}

} // namespace

TEST(Subprocess, DoneMarkerEndsTheWaitWithoutTheTeardown) {
  DoneMarkerChild child("done");
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = runProcess(child.argv(), child.options);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  EXPECT_TRUE(r.succeeded()) << r.describe();
}

TEST(Subprocess, DoneMarkerWithBackgroundReapLeavesTheExitToTheReaper) {
  DoneMarkerChild child("done-bg");
  child.options.reapInBackground = true;
  uint64_t before = backgroundReaper().stats().reaped;
  ProcessResult r;
  int pid = child.supervise(r);
  backgroundReaper().drain();
  EXPECT_FALSE(contains(backgroundReaper().pending(), pid));
  EXPECT_GE(backgroundReaper().stats().reaped, before + 1);
  EXPECT_TRUE(reapedAlready(pid)) << "the reaper did not wait for it";
}

TEST(Subprocess, WithoutBackgroundReapTheChildIsReapedBeforeTheResult) {
  DoneMarkerChild child("done-fg");
  uint64_t before = backgroundReaper().stats().reaped;
  ProcessResult r;
  int pid = child.supervise(r);
  EXPECT_FALSE(contains(backgroundReaper().pending(), pid));
  EXPECT_EQ(backgroundReaper().stats().reaped, before);
  EXPECT_TRUE(reapedAlready(pid));
}

TEST(Subprocess, BackgroundReaperListsAChildUntilItIsReaped) {
  ProcessOptions o;
  ChildProcess c = spawnProcess({"/bin/sh", "-c", "read line"}, o, /*pipeStdin=*/true);
  ASSERT_TRUE(c.running());
  uint64_t before = backgroundReaper().stats().reaped;
  backgroundReaper().reap(c.pid);
  // It waits on its stdin, so it cannot have been reaped yet.
  EXPECT_TRUE(contains(backgroundReaper().pending(), c.pid));
  close(c.stdinFd); // end of input: it exits
  backgroundReaper().drain();
  EXPECT_FALSE(contains(backgroundReaper().pending(), c.pid));
  BackgroundReaper::Stats s = backgroundReaper().stats();
  EXPECT_EQ(s.reaped, before + 1);
  EXPECT_GT(s.maxSeconds, 0.0);
  EXPECT_GE(s.totalSeconds, s.maxSeconds);
  if (!c.outputPath.empty())
    unlink(c.outputPath.c_str());
}

TEST(Subprocess, NiceIncrementLowersTheChildsPriority) {
  ProcessOptions o;
  ProcessResult base = runProcess({"nice"}, o); // prints its own nice value
  ASSERT_TRUE(base.succeeded()) << base.describe();
  o.niceIncrement = 5;
  ProcessResult nicer = runProcess({"nice"}, o);
  ASSERT_TRUE(nicer.succeeded()) << nicer.describe();
  int before = std::stoi(base.output), after = std::stoi(nicer.output);
  EXPECT_EQ(after, std::min(19, before + 5));
}

TEST(Subprocess, StderrApartFromStdout) {
  ProcessOptions o;
  o.separateStderr = true;
  ProcessResult r = runProcess({"/bin/sh", "-c", "echo '{\"a\": 1}'; echo warning >&2"}, o);
  ASSERT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(r.output, "{\"a\": 1}\n");
  EXPECT_EQ(r.errorOutput, "warning\n");
}

TEST(Subprocess, StopKillsASpawnedChild) {
  ChildProcess c = spawnProcess({"/bin/sleep", "30"}, ProcessOptions(), true);
  ASSERT_TRUE(c.running());
  stopProcess(c);
  EXPECT_FALSE(c.running());
  EXPECT_FALSE(spawnProcess({"/nonexistent/program"}, ProcessOptions()).running());
}

TEST(Subprocess, TerminationOfTheOwnerKillsItsChildren) {
  std::string marker = testing::TempDir() + "/cudaperf-owned-" + std::to_string(getpid());
  unlink(marker.c_str());
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t owner = fork();
  ASSERT_GE(owner, 0);
  if (owner == 0) { // an evaluator: its child, in a group of its own, would touch the marker after 1 s
    close(ready[0]);
    killChildrenOnTermination();
    ChildProcess c = spawnProcess({"/bin/sh", "-c", "sleep 1; touch " + marker}, ProcessOptions());
    char ok = c.running() ? 1 : 0;
    if (write(ready[1], &ok, 1) != 1)
      _exit(3);
    sleep(30);
    _exit(0);
  }
  close(ready[1]);
  char ok = 0;
  ASSERT_EQ(read(ready[0], &ok, 1), 1);
  close(ready[0]);
  ASSERT_EQ(ok, 1) << "the owner could not start its child";
  kill(owner, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(owner, &status, 0), owner);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "the owner ends as the signal would end it";
  sleep(2);
  EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the owner's child outlived its SIGTERM";
  unlink(marker.c_str());
}

TEST(Subprocess, RemoveTreeRemovesNestedFilesAndLinksNotTheirTargets) {
  std::string root = testing::TempDir() + "/cudaperf-tree-" + std::to_string(getpid());
  std::string outside = root + "-outside";
  ASSERT_EQ(system(("rm -rf " + root + " " + outside + "; mkdir -p " + root + "/a/b " + outside +
                    " && touch " + root + "/a/b/f " + root + "/g " + outside + "/kept && ln -s " + outside + " " +
                    root + "/a/link").c_str()),
            0);
  std::string error = "unchanged";
  EXPECT_TRUE(removeTree(root, &error)) << error;
  EXPECT_EQ(error, "");
  EXPECT_NE(access(root.c_str(), F_OK), 0) << "the tree is still there";
  EXPECT_EQ(access((outside + "/kept").c_str(), F_OK), 0) << "a symbolic link was followed";
  EXPECT_TRUE(removeTree(root)) << "nothing there is success";
  std::string file = outside + "/kept";
  EXPECT_TRUE(removeTree(file)) << "a plain file is removed too";
  EXPECT_NE(access(file.c_str(), F_OK), 0);
  removeTree(outside);
}

TEST(Subprocess, RemoveTreeReportsWhatItCouldNotReach) {
  std::string file = testing::TempDir() + "/cudaperf-plain-" + std::to_string(getpid());
  std::ofstream(file) << "x";
  std::string error;
  EXPECT_FALSE(removeTree(file + "/below", &error)) << "a path under a plain file is neither there nor gone";
  EXPECT_NE(error.find("Not a directory"), std::string::npos) << error;
  unlink(file.c_str());
}

TEST(Subprocess, FatalSignalReportNamesTheProgramAndTheFaultingAddress) {
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dup2(out[1], STDERR_FILENO);
    close(out[0]);
    reportFatalSignals("crash-test");
    volatile int *nowhere = nullptr;
    *nowhere = 1; // SIGSEGV at address 0
    _exit(0);
  }
  close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;)
    text.append(buf, size_t(n));
  close(out[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) << "the process ends as the signal would end it";
  EXPECT_NE(text.find("crash-test: fatal signal SIGSEGV at address 0x0000000000000000"), std::string::npos) << text;
  EXPECT_NE(text.find("stack"), std::string::npos) << text;
}
