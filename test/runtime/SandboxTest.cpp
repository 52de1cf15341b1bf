// The runner's confinement (lib/Runtime/Sandbox.cpp), tried the way a hostile candidate would:
// each case forks a child that confines itself and then attempts one thing; the parent reads how
// the child ended. Needs a kernel with Landlock and seccomp (skipped, saying so, without them).
#include "cudaperf/Runtime/Sandbox.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <string>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace cudaperf::runtime;

namespace {

struct Ending {
  bool exited = false;
  int code = -1;
  int signal = 0;
};

class SandboxTest : public ::testing::Test {
protected:
  std::string root, scratch, outside;

  void SetUp() override {
    SandboxStatus probe = probeSandbox();
    if (probe.landlockAbi == 0 || !probe.seccompAvailable)
      GTEST_SKIP() << "this kernel lacks Landlock or seccomp (landlock ABI " << probe.landlockAbi << ")";
    char tmpl[] = "/tmp/cudaperf-sandbox-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root = tmpl;
    scratch = root + "/scratch";
    outside = root + "/outside";
    ASSERT_EQ(mkdir(scratch.c_str(), 0700), 0);
    ASSERT_EQ(mkdir(outside.c_str(), 0700), 0);
  }
  void TearDown() override {
    if (!root.empty())
      (void)!system(("rm -rf " + root).c_str());
  }

  SandboxPolicy policy() const {
    SandboxPolicy p;
    p.scratchDir = scratch;
    p.readPaths = {"/usr", "/lib", "/lib64", "/etc", "/proc", "/sys", "/bin"};
    p.writeFiles = {"/dev/null"};
    p.cpuSeconds = 30;
    p.fileBytes = 1 << 20;
    return p;
  }

  // The child confines itself, then runs `attempt`, whose return value is its exit code.
  Ending run(const std::function<int()> &attempt) {
    pid_t pid = fork();
    if (pid == 0) {
      SandboxStatus s = applySandbox(policy());
      if (!s.error.empty() || !s.seccompFilter || !s.landlockFiles)
        _exit(99);
      _exit(attempt());
    }
    int status = 0;
    waitpid(pid, &status, 0);
    Ending e;
    e.exited = WIFEXITED(status);
    e.code = e.exited ? WEXITSTATUS(status) : -1;
    e.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return e;
  }
  void expectKilled(const Ending &e) {
    EXPECT_EQ(e.signal, SIGSYS) << "exited=" << e.exited << " code=" << e.code;
  }
  void expectExit(const Ending &e, int code) {
    EXPECT_TRUE(e.exited) << "signal " << e.signal;
    EXPECT_EQ(e.code, code);
  }
};

// 0: written; 1: refused with EACCES; 2: something else.
int writeFile(const std::string &path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return errno == EACCES ? 1 : 2;
  bool ok = write(fd, "x", 1) == 1;
  close(fd);
  return ok ? 0 : 2;
}

} // namespace

TEST_F(SandboxTest, WritesOnlyInsideScratch) {
  std::string in = scratch + "/ok.txt", out = outside + "/poison.so";
  expectExit(run([&] { return writeFile(in); }), 0);
  expectExit(run([&] { return writeFile(out); }), 1);
  expectExit(run([&] { return writeFile("/tmp/cudaperf-sandbox-escape"); }), 1);
  struct stat st;
  EXPECT_NE(stat(out.c_str(), &st), 0) << "a file appeared outside the scratch directory";
  EXPECT_EQ(stat(in.c_str(), &st), 0);
}

TEST_F(SandboxTest, ReadsOnlyThePolicysPaths) {
  std::string secret = outside + "/manifest.json";
  ASSERT_EQ(writeFile(secret), 0);
  expectExit(run([&] {
               int fd = open(secret.c_str(), O_RDONLY);
               return fd < 0 && errno == EACCES ? 0 : 1;
             }),
             0);
  expectExit(run([] { return open("/etc/hostname", O_RDONLY) >= 0 || errno == ENOENT ? 0 : 1; }), 0);
}

TEST_F(SandboxTest, CannotReadTheParentsEnvironmentOrMemory) {
  // The trusted worker is not dumpable; without capabilities, root cannot read its /proc files.
  int dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  Ending e = run([] {
               std::string base = "/proc/" + std::to_string(getppid());
               int env = open((base + "/environ").c_str(), O_RDONLY);
               int mem = open((base + "/mem").c_str(), O_RDONLY);
               char buf[16];
               bool leaked = (env >= 0 && read(env, buf, sizeof buf) > 0) || (mem >= 0);
               return leaked ? 1 : 0;
             });
  prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0);
  expectExit(e, 0);
}

TEST_F(SandboxTest, CannotWriteItsOwnCodeThroughProcMem) {
  expectExit(run([] {
               int fd = open("/proc/self/mem", O_RDWR);
               return fd < 0 ? 0 : 1;
             }),
             0);
}

TEST_F(SandboxTest, NoNewProcesses) {
  expectKilled(run([] { return fork() >= 0 ? 0 : 3; }));
  expectKilled(run([] {
    char *argv[] = {const_cast<char *>("/bin/true"), nullptr};
    execv("/bin/true", argv);
    return 3;
  }));
}

TEST_F(SandboxTest, ThreadsStillWork) {
  expectExit(run([] {
               int value = 0;
               std::thread t([&] { value = 7; });
               t.join();
               return value;
             }),
             7);
}

TEST_F(SandboxTest, SignalsOnlyToItself) {
  expectKilled(run([] { return kill(getppid(), 0) == 0 ? 0 : 3; }));
  expectKilled(run([] { return kill(0, SIGTERM) == 0 ? 0 : 3; }));
  expectKilled(run([] { return kill(-1, SIGKILL) == 0 ? 0 : 3; }));
  expectExit(run([] { return kill(getpid(), 0) == 0 ? 5 : 3; }), 5);
}

TEST_F(SandboxTest, ParentSurvivesAnAttemptToKillIt) {
  // The parent here is the test process itself: it is still running to check the outcome.
  expectKilled(run([] {
    kill(getppid(), SIGKILL);
    return 0;
  }));
  SUCCEED();
}

TEST_F(SandboxTest, NoNewSessionOrTracing) {
  expectKilled(run([] { return setsid() >= 0 ? 0 : 3; }));
  expectKilled(run([] { return setpgid(0, 0) == 0 ? 0 : 3; }));
  expectKilled(run([] { return ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr) == 0 ? 0 : 3; }));
}

TEST_F(SandboxTest, NoNetworkButUnixSockets) {
  expectExit(run([] {
               int inet = socket(AF_INET, SOCK_STREAM, 0);
               int err = errno;
               int unix_ = socket(AF_UNIX, SOCK_STREAM, 0);
               return inet < 0 && err == EACCES && unix_ >= 0 ? 0 : 1;
             }),
             0);
}

TEST_F(SandboxTest, NoNewExecutableMemory) {
  expectExit(run([] {
               void *p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
               return p == MAP_FAILED && errno == EPERM ? 0 : 1;
             }),
             0);
  expectExit(run([] {
               void *p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
               if (p == MAP_FAILED)
                 return 2;
               return mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0 && errno == EPERM ? 0 : 1;
             }),
             0);
  // Its own code cannot be made writable and executable to patch a timer.
  expectExit(run([] {
               uintptr_t page = reinterpret_cast<uintptr_t>(&getpid) & ~uintptr_t(4095);
               return mprotect(reinterpret_cast<void *>(page), 4096, PROT_READ | PROT_WRITE | PROT_EXEC) != 0 ? 0 : 1;
             }),
             0);
}

TEST_F(SandboxTest, StatusReportsWhatWasApplied) {
  expectExit(run([] { return 0; }), 0);
  SandboxStatus probe = probeSandbox();
  EXPECT_GT(probe.landlockAbi, 0);
  EXPECT_FALSE(sandboxRules().empty());
  SandboxStatus partial;
  partial.missing.push_back("seccomp");
  EXPECT_FALSE(partial.complete());
  EXPECT_EQ(partial.toJson()["complete"], false);
}
