#include "cudaperf/Support/Subprocess.h"

#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
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

TEST(Subprocess, StderrApartFromStdout) {
  ProcessOptions o;
  o.separateStderr = true;
  ProcessResult r = runProcess({"/bin/sh", "-c", "echo '{\"a\": 1}'; echo warning >&2"}, o);
  ASSERT_TRUE(r.succeeded()) << r.describe();
  EXPECT_EQ(r.output, "{\"a\": 1}\n");
  EXPECT_EQ(r.errorOutput, "warning\n");
}
