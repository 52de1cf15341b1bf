// The trust split's channel and the runner's start-up, on the CPU: messages cross as whole
// datagrams with their limits (size, nesting, shape) enforced on receipt, and the runner confines
// itself before it touches CUDA and says how (here, without a driver, it then reports that no
// device is usable; on the GPU host the same message carries the CUDA context's set-up).
#include "../../tools/cudaperf-eval/worker/Channel.h"

#include "cudaperf/Schema/RunnerProtocol.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace cudaperf;
using cudaperf::support::Json;
using cudaperf::worker::Channel;

namespace {

struct Pair {
  Channel a, b;
  Pair() {
    int x, y;
    EXPECT_TRUE(Channel::pair(x, y));
    a.adopt(x);
    b.adopt(y);
  }
};

} // namespace

TEST(RunnerChannel, MessagesCrossWhole) {
  Pair p;
  ASSERT_TRUE(p.a.send(Json{{"op", "timed"}, {"slot", 3}}));
  Json got;
  std::string error;
  ASSERT_TRUE(p.b.receive(got, 1, error)) << error;
  EXPECT_EQ(got["op"], "timed");
  EXPECT_EQ(got["slot"], 3);
}

TEST(RunnerChannel, HostileMessagesAreRefusedNotParsed) {
  Pair p;
  Json got;
  std::string error;
  auto raw = [&](const std::string &text) { return ::send(p.a.fd(), text.data(), text.size(), 0); };
  raw("not json");
  EXPECT_FALSE(p.b.receive(got, 1, error));
  EXPECT_NE(error.find("malformed"), std::string::npos);
  raw(std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_FALSE(p.b.receive(got, 1, error));
  EXPECT_NE(error.find("nested too deeply"), std::string::npos);
  raw("[1,2,3]");
  EXPECT_FALSE(p.b.receive(got, 1, error));
  EXPECT_NE(error.find("not an object"), std::string::npos);
  // A message over the limit is cut by the kernel and refused whole.
  int big = int(Channel::kMaxMessageBytes) + 4096;
  setsockopt(p.a.fd(), SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  std::string huge = "{\"x\":\"" + std::string(Channel::kMaxMessageBytes, 'a') + "\"}";
  if (raw(huge) > 0) {
    EXPECT_FALSE(p.b.receive(got, 1, error));
    EXPECT_NE(error.find("larger"), std::string::npos);
  }
  // The channel is still usable after each refusal.
  ASSERT_TRUE(p.a.send(Json{{"op", "noop"}}));
  EXPECT_TRUE(p.b.receive(got, 1, error)) << error;
}

TEST(RunnerChannel, SilenceAndClosureAreReported) {
  Pair p;
  Json got;
  std::string error;
  EXPECT_FALSE(p.b.receive(got, 0.05, error));
  EXPECT_NE(error.find("no answer"), std::string::npos);
  p.a.close();
  EXPECT_FALSE(p.b.receive(got, 1, error));
  EXPECT_NE(error.find("closed"), std::string::npos);
}

#ifdef CUDAPERF_EVAL_WORKER
// The runner applies its sandbox first, then tries CUDA; its first message says both.
TEST(RunnerChannel, RunnerConfinesItselfBeforeCuda) {
  int mine, theirs;
  ASSERT_TRUE(Channel::pair(mine, theirs));
  char tmpl[] = "/tmp/cudaperf-runner-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string scratch = tmpl;
  // Without a driver here, the toolkit's stub libcuda stands in (every call answers "stub").
  std::string libDir = scratch + "-lib";
  mkdir(libDir.c_str(), 0700);
#ifdef CUDAPERF_CUDA_STUB
  symlink(CUDAPERF_CUDA_STUB, (libDir + "/libcuda.so.1").c_str());
#endif
  pid_t pid = fork();
  if (pid == 0) {
    setenv("LD_LIBRARY_PATH", libDir.c_str(), 1);
    dup2(theirs, 3);
    execl(CUDAPERF_EVAL_WORKER, CUDAPERF_EVAL_WORKER, "--runner", "--channel", "3", "--scratch", scratch.c_str(),
          (char *)nullptr);
    _exit(127);
  }
  close(theirs);
  Channel c(mine);
  Json ready;
  std::string error;
  ASSERT_TRUE(c.receive(ready, 60, error)) << error;
  // The message reads as the worker reads it (schema::runner::Ready, strict).
  schema::runner::Ready typed = schema::runner::readyFromJson(ready, "runner ready");
  ASSERT_TRUE(typed.sandbox) << ready.dump();
  const Json &s = typed.sandbox->extra;
  EXPECT_TRUE(s.value("seccomp", false)) << ready.dump();
  EXPECT_TRUE(s.value("landlock_files", false)) << ready.dump();
  EXPECT_TRUE(s.value("no_new_privs", false));
  EXPECT_TRUE(s.value("capabilities_dropped", false));
  EXPECT_TRUE(typed.sandbox->complete.has_value());
  EXPECT_TRUE(typed.contextSeconds.has_value());
  // No GPU here: the runner says so and ends; with a GPU this is where the candidate is loaded.
  if (typed.error)
    EXPECT_NE(typed.error->find("CUDA"), std::string::npos) << ready.dump();
  c.send(schema::runner::requestToJson(schema::runner::Request::make(schema::runner::Quit{})));
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status)) << "runner ended by signal " << WTERMSIG(status);
  rmdir(scratch.c_str());
  unlink((libDir + "/libcuda.so.1").c_str());
  rmdir(libDir.c_str());
}
#endif
