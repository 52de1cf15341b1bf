#include "cudaperf/Support/Subprocess.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <execinfo.h>
#include <ucontext.h>
#include <mutex>
#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <fcntl.h>
#include <ftw.h>
#include <dirent.h>
#include <map>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace cudaperf::support {

namespace {
// The process groups of the children now running, for killChildrenOnTermination's handler: a
// fixed table of lock-free slots, so the handler stays async-signal-safe. A child beyond the
// table's size is simply not killed by the handler.
constexpr size_t kLiveSlots = 1024;
std::atomic<pid_t> liveGroups[kLiveSlots];

void rememberGroup(pid_t pid) {
  for (auto &slot : liveGroups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid))
      return;
  }
}

void forgetGroup(pid_t pid) {
  for (auto &slot : liveGroups) {
    pid_t expected = pid;
    if (slot.compare_exchange_strong(expected, 0))
      return;
  }
}

void killLiveGroups() {
  for (auto &slot : liveGroups)
    if (pid_t pid = slot.load(); pid > 0)
      kill(-pid, SIGKILL);
}

extern "C" void killGroupsAndDie(int sig) {
  killLiveGroups();
  signal(sig, SIG_DFL);
  raise(sig);
}

// The program name for reportFatalSignals' message (a fixed buffer: the handler may not allocate).
char fatalProgram[64] = "cudaperf";

// Writes `value` in hexadecimal (async-signal-safe, no formatting library).
void writeHex(uintptr_t value) {
  char text[2 + 16 + 1] = "0x";
  for (int i = 0; i < 16; ++i) text[2 + i] = "0123456789abcdef"[(value >> (60 - 4 * i)) & 0xf];
  text[18] = 0;
  ssize_t ignored = write(STDERR_FILENO, text, 18);
  (void)ignored;
}

extern "C" void reportFatalAndDie(int sig, siginfo_t *info, void *context) {
  // Only async-signal-safe calls: write, backtrace_symbols_fd (backtrace itself is safe once libgcc is
  // loaded, which reportFatalSignals makes sure of), kill, signal, raise.
  const char *name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE"
                     : sig == SIGILL ? "SIGILL" : "SIGABRT";
  auto say = [](const char *text) { ssize_t ignored = write(STDERR_FILENO, text, strlen(text)); (void)ignored; };
  say("\n");
  say(fatalProgram);
  say(": fatal signal ");
  say(name);
  if (info && sig != SIGABRT) {
    say(" at address ");
    writeHex(uintptr_t(info->si_addr));
  }
#if defined(__x86_64__) && defined(REG_RIP)
  // The faulting instruction, and the return address on top of the stack: when the fault is a call
  // through a bad pointer, the unwinder stops at the signal frame and that address names the caller.
  if (context) {
    const greg_t *regs = static_cast<const ucontext_t *>(context)->uc_mcontext.gregs;
    void *pc = reinterpret_cast<void *>(regs[REG_RIP]);
    say("\ninstruction: ");
    backtrace_symbols_fd(&pc, 1, STDERR_FILENO);
    uintptr_t sp = uintptr_t(regs[REG_RSP]);
    if (sp != 0 && sp % sizeof(void *) == 0) {
      void *top = *reinterpret_cast<void **>(sp);
      say("top of stack (the caller, if a call jumped to a bad address): ");
      backtrace_symbols_fd(&top, 1, STDERR_FILENO);
    }
  }
#else
  (void)context;
#endif
  say("stack (addresses; symbols where exported):\n");
  void *frames[64];
  int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  killLiveGroups();
  signal(sig, SIG_DFL);
  raise(sig);
}
} // namespace

void reportFatalSignals(const char *program) {
  std::snprintf(fatalProgram, sizeof fatalProgram, "%s", program);
  void *warm[1];
  backtrace(warm, 1); // loads libgcc's unwinder now, not inside the handler
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
    struct sigaction sa = {};
    sa.sa_sigaction = reportFatalAndDie;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

void killChildrenOnTermination() {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction sa = {};
    sa.sa_handler = killGroupsAndDie;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

std::string ProcessResult::describe() const {
  if (!started)
    return "could not start: " + startError;
  if (stalled)
    return "killed after making no progress (total " + std::to_string(int(seconds + 0.5)) + " s)";
  if (timedOut)
    return "timed out after " + std::to_string(int(seconds + 0.5)) + " s";
  if (exited)
    return "exit status " + std::to_string(exitCode);
  return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

namespace {
// nftw's callback has no user argument: the first failure of the current removeTree (one at a time).
std::mutex removeTreeMutex;
std::string removeTreeError;

int removeEntry(const char *path, const struct stat *, int, struct FTW *) {
  if (remove(path) != 0 && errno != ENOENT && removeTreeError.empty())
    removeTreeError = std::string(path) + ": " + strerror(errno);
  return 0; // keep going: remove what can be removed
}
} // namespace

bool removeTree(const std::string &path, std::string *error) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT)
      return true; // nothing there
    if (error)
      *error = path + ": " + strerror(errno);
    return false;
  }
  std::lock_guard<std::mutex> lock(removeTreeMutex);
  removeTreeError.clear();
  if (nftw(path.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS) != 0 && removeTreeError.empty())
    removeTreeError = path + ": " + strerror(errno);
  if (error)
    *error = removeTreeError;
  return removeTreeError.empty() && lstat(path.c_str(), &st) != 0;
}

std::string executableDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return ".";
  std::string p(buf, size_t(n));
  return p.substr(0, p.rfind('/'));
}

namespace {

std::mutex policyMutex;
ChildPolicy childPolicy;

} // namespace

void setChildPolicy(const ChildPolicy &policy) {
  std::lock_guard<std::mutex> lock(policyMutex);
  childPolicy = policy;
}

namespace {
bool allowedByDefault(const std::string &name) {
  static const char *exact[] = {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LD_LIBRARY_PATH"};
  for (const char *e : exact)
    if (name == e)
      return true;
  for (const char *prefix : {"LC_", "CUDA_", "NVIDIA_", "CUDAPERF_"})
    if (name.rfind(prefix, 0) == 0)
      return true;
  return false;
}
} // namespace

bool childEnvironmentAllowed(const std::string &name) {
  if (allowedByDefault(name))
    return true;
  std::lock_guard<std::mutex> lock(policyMutex);
  for (const std::string &k : childPolicy.keepVariables)
    if (name == k)
      return true;
  return false;
}

namespace {

// The parent of every process (from /proc), for killing a tree whose members left its group.
std::map<pid_t, std::vector<pid_t>> childrenByParent() {
  std::map<pid_t, std::vector<pid_t>> children;
  DIR *proc = opendir("/proc");
  if (!proc)
    return children;
  while (dirent *e = readdir(proc)) {
    char *end = nullptr;
    long pid = strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end)
      continue;
    char path[64], buf[512];
    std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
      continue;
    buf[n] = 0;
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; the last ')' ends it.
    char *close = strrchr(buf, ')');
    if (!close)
      continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(close + 1, " %c %ld", &state, &ppid) == 2)
      children[pid_t(ppid)].push_back(pid_t(pid));
  }
  closedir(proc);
  return children;
}

// Kills `pid`'s group and every descendant, also those that moved to a group or session of their
// own (setsid, setpgid: a compiler driver's children may): the group is stopped first so that it
// cannot start more, then the tree is found and killed, twice for what started meanwhile.
void killTree(pid_t pid) {
  kill(-pid, SIGSTOP);
  for (int round = 0; round < 2; ++round) {
    std::map<pid_t, std::vector<pid_t>> children = childrenByParent();
    std::vector<pid_t> todo = {pid};
    for (size_t i = 0; i < todo.size() && todo.size() < 100000; ++i) {
      auto it = children.find(todo[i]);
      if (it == children.end())
        continue;
      for (pid_t c : it->second) {
        kill(c, SIGSTOP);
        todo.push_back(c);
      }
    }
    for (size_t i = 1; i < todo.size(); ++i) {
      kill(todo[i], SIGKILL);
      pid_t group = getpgid(todo[i]);
      if (group > 1 && group != getpgrp())
        kill(-group, SIGKILL);
    }
  }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
}

std::string readHead(const std::string &path, size_t maxBytes, uint64_t &total) {
  std::string out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return out;
  struct stat st;
  total = fstat(fd, &st) == 0 ? uint64_t(st.st_size) : 0;
  size_t want = size_t(std::min<uint64_t>(maxBytes, total)); // a large cap costs nothing unused
  out.resize(want);
  size_t got = 0;
  while (got < want) {
    ssize_t n = read(fd, &out[got], want - got);
    if (n <= 0)
      break;
    got += size_t(n);
  }
  out.resize(got);
  close(fd);
  return out;
}

} // namespace

namespace {

// The last bytes of a file (where a progress file's last line is).
std::string readTail(const std::string &path, size_t bytes) {
  std::string out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return out;
  struct stat st;
  if (fstat(fd, &st) == 0) {
    off_t from = st.st_size > off_t(bytes) ? st.st_size - off_t(bytes) : 0;
    out.resize(size_t(st.st_size - from));
    ssize_t n = pread(fd, &out[0], out.size(), from);
    out.resize(n > 0 ? size_t(n) : 0);
  }
  close(fd);
  return out;
}

} // namespace

ChildProcess spawnProcess(const std::vector<std::string> &argv, const ProcessOptions &options, bool pipeStdin,
                          bool pipeStdout) {
  ChildProcess child;
  if (argv.empty()) {
    child.startError = "empty command";
    return child;
  }
  child.outputPath = options.outputPath;
  child.temporaryOutput = child.outputPath.empty();
  if (child.temporaryOutput) {
    char tmpl[] = "/tmp/cudaperf-out-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) {
      child.startError = std::string("mkstemp: ") + strerror(errno);
      return child;
    }
    close(fd);
    child.outputPath = tmpl;
  }

  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char *> cargv;
  for (const auto &a : argv)
    cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);
  ChildPolicy policy;
  {
    std::lock_guard<std::mutex> lock(policyMutex);
    policy = childPolicy;
  }
  std::string program = argv[0].substr(argv[0].rfind('/') + 1);
  bool limited = policy.limitedPrograms.empty() ||
                 std::find(policy.limitedPrograms.begin(), policy.limitedPrograms.end(), program) !=
                     policy.limitedPrograms.end();
  bool minimalEnvironment = options.minimalEnvironment || policy.minimalEnvironment;
  int64_t addressSpaceLimit = options.addressSpaceLimit > 0 ? options.addressSpaceLimit
                              : limited                     ? policy.addressSpaceLimit
                                                            : 0;
  int64_t cpuSecondsLimit = options.cpuSecondsLimit > 0 ? options.cpuSecondsLimit
                            : limited                   ? policy.cpuSecondsLimit
                                                        : 0;
  std::vector<std::string> envStrings;
  for (char **e = environ; *e; ++e) {
    std::string s = *e;
    if (minimalEnvironment && !childEnvironmentAllowed(s.substr(0, s.find('='))))
      continue;
    bool replaced = false;
    for (const auto &x : options.extraEnv)
      if (s.compare(0, x.find('=') + 1, x, 0, x.find('=') + 1) == 0)
        replaced = true;
    if (!replaced)
      envStrings.push_back(s);
  }
  for (const auto &x : options.extraEnv)
    envStrings.push_back(x);
  std::vector<char *> cenv;
  for (auto &s : envStrings)
    cenv.push_back(const_cast<char *>(s.c_str()));
  cenv.push_back(nullptr);

  int outFd = open(child.outputPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (outFd < 0) {
    child.startError = child.outputPath + ": " + strerror(errno);
    return child;
  }
  int errFd = -1; // with separateStderr: stderr's temporary file
  if (options.separateStderr) {
    char tmpl[] = "/tmp/cudaperf-err-XXXXXX";
    errFd = mkostemp(tmpl, O_CLOEXEC);
    if (errFd < 0) {
      close(outFd);
      child.startError = std::string("mkstemp: ") + strerror(errno);
      if (child.temporaryOutput)
        unlink(child.outputPath.c_str());
      return child;
    }
    child.errorPath = tmpl;
  }
  int errPipe[2];                  // carries errno if exec fails
  int inPipe[2] = {-1, -1}, outPipe[2] = {-1, -1};
  auto closeAll = [&] { // the program never started: its files go too
    for (int fd : {outFd, errFd, errPipe[0], errPipe[1], inPipe[0], inPipe[1], outPipe[0], outPipe[1]})
      if (fd >= 0)
        close(fd);
    if (child.temporaryOutput)
      unlink(child.outputPath.c_str());
    if (!child.errorPath.empty())
      unlink(child.errorPath.c_str());
  };
  errPipe[0] = errPipe[1] = -1;
  if (pipe2(errPipe, O_CLOEXEC) != 0 || (pipeStdin && pipe2(inPipe, O_CLOEXEC) != 0) ||
      (pipeStdout && pipe2(outPipe, O_CLOEXEC) != 0)) {
    child.startError = std::string("pipe: ") + strerror(errno);
    closeAll();
    return child;
  }

  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    child.startError = std::string("fork: ") + strerror(errno);
    closeAll();
    return child;
  }
  if (pid == 0) {
    setpgid(0, 0);
    if (options.dieWithParent) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) // it died before the line above
        _exit(127);
    }
    if (addressSpaceLimit > 0) {
      struct rlimit as = {rlim_t(addressSpaceLimit), rlim_t(addressSpaceLimit)};
      setrlimit(RLIMIT_AS, &as);
    }
    if (cpuSecondsLimit > 0) {
      struct rlimit cpu = {rlim_t(cpuSecondsLimit), rlim_t(cpuSecondsLimit + 1)};
      setrlimit(RLIMIT_CPU, &cpu);
    }
    if (pipeStdin) {
      dup2(inPipe[0], 0);
    } else {
      int devNull = open("/dev/null", O_RDONLY);
      if (devNull >= 0)
        dup2(devNull, 0);
    }
    dup2(pipeStdout ? outPipe[1] : outFd, 1);
    dup2(errFd >= 0 ? errFd : outFd, 2);
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    if (options.niceIncrement != 0) {
      errno = 0;
      int now = getpriority(PRIO_PROCESS, 0);
      if (errno == 0)
        setpriority(PRIO_PROCESS, 0, now + options.niceIncrement);
    }
    if (options.fileSizeLimit > 0) {
      struct rlimit fsize = {rlim_t(options.fileSizeLimit), rlim_t(options.fileSizeLimit)};
      setrlimit(RLIMIT_FSIZE, &fsize);
      signal(SIGXFSZ, SIG_IGN);
    }
    execve(cargv[0], cargv.data(), cenv.data());
    if (!strchr(cargv[0], '/'))
      execvpe(cargv[0], cargv.data(), cenv.data());
    int err = errno;
    ssize_t ignored = write(errPipe[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid); // also from the parent, so the group exists before any kill
  rememberGroup(pid);
  close(outFd);
  if (errFd >= 0)
    close(errFd);
  close(errPipe[1]);
  int execErrno = 0;
  ssize_t n = read(errPipe[0], &execErrno, sizeof execErrno);
  close(errPipe[0]);
  if (pipeStdin)
    close(inPipe[0]);
  if (pipeStdout)
    close(outPipe[1]);
  if (n == sizeof execErrno) {
    int status = 0;
    waitpid(pid, &status, 0);
    forgetGroup(pid);
    child.startError = argv[0] + ": " + strerror(execErrno);
    if (pipeStdin)
      close(inPipe[1]);
    if (pipeStdout)
      close(outPipe[0]);
    if (child.temporaryOutput)
      unlink(child.outputPath.c_str());
    if (!child.errorPath.empty())
      unlink(child.errorPath.c_str());
    return child;
  }
  child.pid = pid;
  child.stdinFd = pipeStdin ? inPipe[1] : -1;
  child.stdoutFd = pipeStdout ? outPipe[0] : -1;
  return child;
}

namespace {
// The child is gone (or handed to the reaper, which forgets its group once reaped): its pipes too.
void forget(ChildProcess &child, bool keepGroup = false) {
  if (!keepGroup)
    forgetGroup(child.pid);
  child.pid = -1;
  if (child.stdinFd >= 0)
    close(child.stdinFd);
  if (child.stdoutFd >= 0)
    close(child.stdoutFd);
  child.stdinFd = child.stdoutFd = -1;
}
} // namespace

ProcessResult superviseProcess(ChildProcess &child, const ProcessOptions &options) {
  ProcessResult result;
  if (!child.running()) {
    result.startError = child.startError.empty() ? "not started" : child.startError;
    return result;
  }
  pid_t pid = child.pid;
  auto start = std::chrono::steady_clock::now();
  int status = 0;
  bool reaped = false, done = false;
  auto deadline = start + std::chrono::duration<double>(options.timeoutSeconds);
  auto pause = std::chrono::microseconds(200);
  // A child that says when it is done is watched closely: the wait for its result is the cost.
  auto longestPause = options.doneMarker.empty() ? std::chrono::microseconds(6400) : std::chrono::microseconds(1000);
  off_t progressSize = -1;
  auto lastProgress = start;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      reaped = true;
      break;
    }
    if (r < 0 && errno != EINTR)
      break;
    auto now = std::chrono::steady_clock::now();
    if (!options.progressPath.empty() && (options.stallSeconds > 0 || !options.doneMarker.empty())) {
      struct stat st;
      off_t size = stat(options.progressPath.c_str(), &st) == 0 ? st.st_size : 0;
      if (size != progressSize) {
        progressSize = size;
        lastProgress = now;
        if (!options.doneMarker.empty() && readTail(options.progressPath, 256).find(options.doneMarker) != std::string::npos) {
          done = true;
          break;
        }
      } else if (options.stallSeconds > 0 &&
                 std::chrono::duration<double>(now - lastProgress).count() >= options.stallSeconds) {
        result.stalled = true;
      }
    }
    if (now >= deadline || result.stalled) {
      result.timedOut = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(2 * pause, longestPause);
  }
  if (!reaped && !done)
    killTree(pid); // timed out: the child, its group, and descendants that left the group
  kill(-pid, SIGKILL); // whatever the child left running in its group
  bool inBackground = !reaped && done && options.reapInBackground;
  if (inBackground)
    backgroundReaper().reap(pid);
  else if (!reaped)
    waitpid(pid, &status, 0);
  forget(child, inBackground);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.started = true;
  if (inBackground) { // finished its work, killed before its exit
    result.exited = true;
    result.exitCode = 0;
  } else if (!result.timedOut && WIFEXITED(status)) {
    result.exited = true;
    result.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    if (done) { // finished its work; the kill only spared us its teardown
      result.exited = true;
      result.exitCode = 0;
      result.signal = 0;
    }
  }
  result.output = readHead(child.outputPath, options.maxCapturedBytes, result.outputBytes);
  result.outputTruncated = result.outputBytes > result.output.size();
  if (child.temporaryOutput)
    unlink(child.outputPath.c_str());
  if (!child.errorPath.empty()) {
    uint64_t errorBytes = 0;
    result.errorOutput = readHead(child.errorPath, options.maxCapturedBytes, errorBytes);
    unlink(child.errorPath.c_str());
  }
  return result;
}

void stopProcess(ChildProcess &child) {
  if (!child.running())
    return;
  kill(-child.pid, SIGKILL);
  int status = 0;
  waitpid(child.pid, &status, 0);
  forget(child);
  if (child.temporaryOutput)
    unlink(child.outputPath.c_str());
  if (!child.errorPath.empty())
    unlink(child.errorPath.c_str());
}

struct BackgroundReaper::State {
  std::mutex mu;
  std::condition_variable changed;
  std::deque<std::pair<int, std::chrono::steady_clock::time_point>> queue;
  std::vector<int> pending; // handed over, not reaped yet (the one being waited for included)
  Stats stats;
};

BackgroundReaper::BackgroundReaper() : state_(new State) {
  std::thread([s = state_] {
    std::unique_lock<std::mutex> lock(s->mu);
    while (true) {
      s->changed.wait(lock, [&] { return !s->queue.empty(); });
      auto [pid, handed] = s->queue.front();
      s->queue.pop_front();
      lock.unlock();
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - handed).count();
      forgetGroup(pid);
      lock.lock();
      s->pending.erase(std::find(s->pending.begin(), s->pending.end(), pid));
      ++s->stats.reaped;
      s->stats.totalSeconds += seconds;
      s->stats.maxSeconds = std::max(s->stats.maxSeconds, seconds);
      s->changed.notify_all();
    }
  }).detach();
}

void BackgroundReaper::reap(int pid) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->queue.emplace_back(pid, std::chrono::steady_clock::now());
  state_->pending.push_back(pid);
  state_->changed.notify_all();
}

std::vector<int> BackgroundReaper::pending() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->pending;
}

void BackgroundReaper::drain() {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->changed.wait(lock, [&] { return state_->pending.empty(); });
}

BackgroundReaper::Stats BackgroundReaper::stats() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->stats;
}

BackgroundReaper &backgroundReaper() {
  static BackgroundReaper *reaper = new BackgroundReaper; // never destroyed, like its thread
  return *reaper;
}

ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &givenOptions) {
  ProcessOptions options = givenOptions;
  options.dieWithParent = true; // this thread waits for it below
  ChildProcess child = spawnProcess(argv, options);
  if (!child.running()) {
    ProcessResult result;
    result.startError = child.startError;
    return result;
  }
  return superviseProcess(child, options);
}

} // namespace cudaperf::support
