#include "Callee.h"
#include "AllocationInterpose.h"
#include "DeviceInfo.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <fcntl.h>
#include <ftw.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace cudaperf::worker {

using support::Json;
using runtime::MemoryKind;
using runtime::MemorySummary;
using runtime::Outcome;
namespace runner = schema::runner;

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// The memory kinds by name, for reading a runner's summary back.
const MemoryKind kKinds[] = {MemoryKind::Device,     MemoryKind::Pitched,        MemoryKind::Array,
                             MemoryKind::Managed,    MemoryKind::Async,          MemoryKind::Physical,
                             MemoryKind::PinnedHost, MemoryKind::RegisteredHost};

cudaError_t cudaErrorFrom(const std::optional<int64_t> &e) {
  if (!e)
    return cudaSuccess;
  // A hostile runner's number is only ever an error of its own: anything out of range is one too.
  return *e >= 0 && *e < 10000 ? cudaError_t(*e) : cudaErrorUnknown;
}

// A runner's figure; absent or not finite reads as 0 (what a non-number always read as).
double figure(const std::optional<double> &v) { return v && std::isfinite(*v) ? *v : 0.0; }

} // namespace

runner::MemoryFigures memoryFigures(const MemorySummary &m) {
  runner::MemoryFigures f;
  f.deviceBytes = m.deviceBytes;
  f.hostBytes = m.hostBytes;
  f.bytesByKind.emplace();
  for (const auto &[kind, bytes] : m.bytesByKind)
    f.bytesByKind->emplace_back(runtime::memoryKindName(kind), bytes);
  f.liveAllocations = m.liveAllocations;
  f.allocations = m.allocations;
  f.frees = m.frees;
  f.failedAllocations = m.failedAllocations;
  f.failedBytes = m.failedBytes;
  f.invalidFrees = m.invalidFrees;
  f.untrackedFrees = m.untrackedFrees;
  f.refusedFrees = m.refusedFrees;
  f.poolReservedBytes = m.poolReservedBytes;
  f.pools = m.pools;
  return f;
}

MemorySummary memorySummary(const runner::MemoryFigures &f) {
  MemorySummary m;
  m.deviceBytes = f.deviceBytes.value_or(0);
  m.hostBytes = f.hostBytes.value_or(0);
  if (f.bytesByKind)
    for (const auto &[name, bytes] : *f.bytesByKind)
      for (MemoryKind k : kKinds)
        if (bytes && name == runtime::memoryKindName(k))
          m.bytesByKind[k] = bytes;
  m.liveAllocations = f.liveAllocations.value_or(0);
  m.allocations = f.allocations.value_or(0);
  m.frees = f.frees.value_or(0);
  m.failedAllocations = f.failedAllocations.value_or(0);
  m.failedBytes = f.failedBytes.value_or(0);
  m.invalidFrees = f.invalidFrees.value_or(0);
  m.untrackedFrees = f.untrackedFrees.value_or(0);
  m.refusedFrees = f.refusedFrees.value_or(0);
  m.poolReservedBytes = f.poolReservedBytes.value_or(0);
  m.pools = f.pools.value_or(0);
  return m;
}

Json memorySummaryJson(const MemorySummary &m) { return runner::memoryFiguresToJson(memoryFigures(m)); }

// --- in this process (the baseline) ---------------------------------------------------------

int InProcessCallee::bind(const DeviceArgs &dev, std::string &) {
  slots_[next_] = dev.packed();
  return next_++;
}

CallResult InProcessCallee::check(int slot) {
  CallResult r;
  auto t0 = Clock::now();
  callEntry(fn_, slots_.at(slot).pointers.data(), stream_);
  r.launchError = cudaGetLastError();
  if (!r.launchError) {
    r.error = cudaDeviceSynchronize();
    if (!r.error)
      r.launchError = cudaGetLastError();
  }
  r.wallMs = msSince(t0);
  r.outOfMemory = takeCandidateOutOfMemory();
  r.memory = candidateMemory();
  return r;
}

CallResult InProcessCallee::timed(int slot) {
  CallResult r;
  auto t0 = Clock::now();
  r.error = timedCall(fn_, slots_.at(slot).pointers.data(), stream_, flusher_, r.eventMs, &r.hostMs,
                      settleTimedCalls());
  r.wallMs = msSince(t0);
  return r;
}

CallResult InProcessCallee::audit(int slot, AuditReport &report) {
  CallResult r;
  r.error = auditCall(fn_, slots_.at(slot).pointers.data(), stream_, report.audit);
  report.launches = recordedLaunches();
  report.launchesTruncated = recordedLaunchesTruncated();
  return r;
}

CallResult InProcessCallee::batch(const std::vector<int> &slots) {
  CallResult r;
  auto t0 = Clock::now();
  for (int slot : slots)
    callEntry(fn_, slots_.at(slot).pointers.data(), stream_);
  r.launchError = cudaGetLastError();
  if (!r.launchError)
    r.error = cudaDeviceSynchronize();
  r.wallMs = msSince(t0);
  return r;
}

MemorySummary InProcessCallee::memory() { return candidateMemory(); }

// --- in the runner (a candidate) ------------------------------------------------------------

RunnerCallee::~RunnerCallee() { stop(); }

std::string RunnerCallee::start(const RunnerOptions &options) {
  char tmpl[] = "/tmp/cudaperf-runner-XXXXXX";
  const char *base = getenv("CUDAPERF_RUNNER_DIR");
  std::string pattern = base && *base ? std::string(base) + "/cudaperf-runner-XXXXXX" : tmpl;
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    return "cannot create the runner's scratch directory: " + std::string(strerror(errno));
  scratch_ = buf.data();
  int mine = -1, theirs = -1;
  if (!Channel::pair(mine, theirs))
    return std::string("socketpair: ") + strerror(errno);
  channel_.adopt(mine);

  // Everything the child needs is made before fork: the worker has threads (the CUDA driver's).
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return "cannot find the worker's own executable";
  self[n] = '\0';
  std::vector<std::string> args = {self, "--runner", "--channel", "3", "--scratch", scratch_, "--cpu-seconds",
                                   std::to_string(int64_t(options.cpuSeconds))};
  if (!options.sandbox)
    args.push_back("--no-sandbox");
  for (const std::string &p : options.extraReadPaths)
    args.insert(args.end(), {"--read-path", p});
  // A clean environment: nothing of the evaluator's (tokens, paths) reaches candidate code.
  std::vector<std::string> env = {"HOME=" + scratch_, "TMPDIR=" + scratch_, "PATH=/usr/bin:/bin"};
  for (const char *keep : {"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_MODULE_LOADING",
                           "LD_LIBRARY_PATH", "CUDA_DEVICE_ORDER"})
    if (const char *v = getenv(keep))
      env.push_back(std::string(keep) + "=" + v);
  std::vector<char *> argv, envp;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string &e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  // The runner must not read this process's /proc files (its environment, its memory).
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);

  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0)
    return std::string("fork: ") + strerror(errno);
  if (pid == 0) {
    // In the worker's process group, so the evaluator's kill of the group takes it too; killed
    // with the worker.
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != parent)
      _exit(127);
    if (dup2(theirs, 3) < 0)
      _exit(127);
    // Not the worker's stdin (a pool worker's job arrives there).
    int devNull = open("/dev/null", O_RDONLY);
    if (devNull < 0 || dup2(devNull, 0) < 0)
      _exit(127);
    fcntl(3, F_SETFD, 0);
    for (int fd = 4; fd < 1024; ++fd)
      close(fd);
    if (chdir(scratch_.c_str()) != 0)
      _exit(127);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  close(theirs);
  pid_ = pid;
  return "";
}

void RunnerCallee::markLost(const std::string &channelError) {
  if (lostSet_)
    return;
  lostSet_ = true;
  // Whatever the runner did, it is done now: how did it end?
  int status = 0;
  pid_t r = 0;
  for (int i = 0; i < 50 && r == 0; ++i) {
    r = waitpid(pid_, &status, WNOHANG);
    if (r == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (r == 0) {
    kill(pid_, SIGKILL);
    r = waitpid(pid_, &status, 0);
    lost_ = Outcome::RuntimeFault;
    lostDetail_ = "the candidate's runner broke the protocol with the worker (" + channelError + ")";
  } else if (r == pid_ && WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS) {
    lost_ = Outcome::RuntimeFault;
    lostDetail_ = "the sandbox killed the candidate's process: it made a system call the sandbox forbids "
                  "(a new process, exec, a signal, ptrace or memory access to another process, a new session, ...)";
  } else if (r == pid_ && WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
    lost_ = Outcome::Timeout;
    lostDetail_ = "the candidate's process used up its CPU time limit";
  } else if (r == pid_ && WIFSIGNALED(status)) {
    lost_ = Outcome::RuntimeFault;
    lostDetail_ = std::string("the candidate's process was killed by signal ") + std::to_string(WTERMSIG(status)) +
                  " (" + strsignal(WTERMSIG(status)) + ")";
  } else if (r == pid_ && WIFEXITED(status)) {
    lost_ = Outcome::RuntimeFault;
    lostDetail_ = "the candidate's process ended (exit status " + std::to_string(WEXITSTATUS(status)) +
                  ") while candidate code ran";
  } else {
    lost_ = Outcome::RuntimeFault;
    lostDetail_ = "the candidate's runner is gone (" + channelError + ")";
  }
  pid_ = -1;
}

CallResult RunnerCallee::request(const runner::Request &message, runner::Answer *answer) {
  CallResult r;
  if (lostSet_) {
    r.lost = lost_;
    r.lostDetail = lostDetail_;
    return r;
  }
  auto t0 = Clock::now();
  Json reply;
  std::string error;
  bool ok = channel_.send(runner::requestToJson(message)) && channel_.receive(reply, -1, error);
  r.wallMs = msSince(t0);
  runner::Answer a;
  if (ok) {
    try {
      a = runner::answerFromJson(reply, message.kind(), "runner answer");
    } catch (const std::exception &e) {
      // A known field of another type: the runner did not write it (candidate code did).
      ok = false;
      error = e.what();
    }
  }
  if (!ok) {
    markLost(error.empty() ? "it closed the channel" : error);
    r.lost = lost_;
    r.lostDetail = lostDetail_;
    return r;
  }
  r.error = cudaErrorFrom(a.error);
  if (const auto *b = a.as<runner::Check::Result>()) {
    r.launchError = cudaErrorFrom(b->launchError);
    r.outOfMemory = b->outOfMemory.value_or(0);
    if (b->memory)
      r.memory = lastMemory_ = memorySummary(*b->memory);
  } else if (const auto *b = a.as<runner::Timed::Result>()) {
    r.eventMs = figure(b->ms);
    r.hostMs = figure(b->hostMs);
  } else if (const auto *b = a.as<runner::Batch::Result>()) {
    r.launchError = cudaErrorFrom(b->launchError);
  } else if (const auto *b = a.as<runner::Memory::Result>()) {
    if (b->memory)
      r.memory = lastMemory_ = memorySummary(*b->memory);
  }
  if (answer)
    *answer = std::move(a);
  return r;
}

std::string RunnerCallee::ready(bool &retryable) {
  retryable = false;
  Json reply;
  std::string error;
  // The runner's CUDA context takes a second or so; a minute means it is stuck.
  if (!channel_.receive(reply, 120, error)) {
    markLost(error);
    return "the candidate's runner did not start: " + lostDetail_;
  }
  runner::Ready ready;
  try {
    ready = runner::readyFromJson(reply, "runner ready");
  } catch (const std::exception &e) {
    markLost(e.what());
    return "the candidate's runner did not start: " + lostDetail_;
  }
  sandboxReport_ = ready.sandbox.value_or(runner::SandboxReport());
  if (ready.error && !ready.error->empty()) {
    retryable = ready.retryable.value_or(false);
    return *ready.error;
  }
  return "";
}

std::string RunnerCallee::load(const std::string &soPath) {
  // A copy in its own directory: the runner reads nothing of the build cache.
  std::string dest = scratch_ + "/candidate.so";
  int in = open(soPath.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return "cannot read the built object: " + std::string(strerror(errno));
  int out = open(dest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
  bool ok = out >= 0;
  char buf[1 << 16];
  ssize_t n;
  while (ok && (n = read(in, buf, sizeof buf)) > 0)
    ok = write(out, buf, size_t(n)) == n;
  close(in);
  if (out >= 0)
    close(out);
  if (!ok)
    return "cannot copy the built object for the runner";
  runner::Answer answer;
  CallResult r = request(runner::Request::make(runner::Load{dest}), &answer);
  if (r.lost != Outcome::Ok)
    return r.lostDetail;
  return answer.as<runner::Load::Result>()->loadError.value_or("");
}

int RunnerCallee::bind(const DeviceArgs &dev, std::string &error) {
  cudaError_t e;
  std::vector<runner::BindArg> args = dev.channelArgs(e);
  if (e) {
    error = "exporting the arguments: " + cudaErrorText(e);
    return -1;
  }
  static int next = 0;
  int slot = next++;
  CallResult r = request(runner::Request::make(runner::Bind{slot, std::move(args)}));
  if (r.lost != Outcome::Ok) {
    error = r.lostDetail;
    return -1;
  }
  if (r.error) {
    error = "the runner could not map the arguments: " + cudaErrorText(r.error);
    return -1;
  }
  return slot;
}

void RunnerCallee::unbind(int slot) { request(runner::Request::make(runner::Unbind{slot})); }

CallResult RunnerCallee::check(int slot) { return request(runner::Request::make(runner::Check{slot})); }
CallResult RunnerCallee::timed(int slot) {
  return request(runner::Request::make(runner::Timed{slot, settleTimedCalls()}));
}

CallResult RunnerCallee::audit(int slot, AuditReport &report) {
  runner::Answer answer;
  CallResult r = request(runner::Request::make(runner::Audit{slot}), &answer);
  if (!r.ok())
    return r;
  const runner::Audit::Result &b = *answer.as<runner::Audit::Result>();
  AuditResult &a = report.audit;
  a.streamSpanMs = figure(b.streamSpanMs);
  a.hostReturnMs = figure(b.hostReturnMs);
  a.drainMs = figure(b.drainMs);
  // Counts are read within int's range (schema::runner::Audit).
  a.pendingStreams = int(b.pendingStreams.value_or(0));
  a.threadsLeft = int(b.threadsLeft.value_or(0));
  a.attempts = int(b.attempts.value_or(0));
  a.activity.kernels = int(b.kernels.value_or(0));
  a.activity.kernelsOnDefaultStream = int(b.kernelsDefaultStream.value_or(0));
  a.activity.kernelsOnOtherStreams = int(b.kernelsOtherStreams.value_or(0));
  a.activity.hostCopies = int(b.hostCopies.value_or(0));
  a.violation = b.violation.value_or("");
  report.launchesTruncated = b.launchesTruncated.value_or(false);
  if (b.launches)
    for (const runner::Launch &l : *b.launches) {
      if (report.launches.size() >= kMaxRecordedLaunches)
        break;
      LaunchRecord rec;
      rec.kernel = l.kernel.substr(0, 4096);
      for (int d = 0; d < 3; ++d) {
        rec.grid[d] = l.grid[d];
        rec.block[d] = l.block[d];
      }
      rec.dynamicSmemBytes = size_t(l.dynamicSmemBytes);
      // The reader took only these three names; the record points at literals.
      rec.stream = l.stream == "timed" ? "timed" : l.stream == "default" ? "default" : "other";
      report.launches.push_back(std::move(rec));
    }
  return r;
}

CallResult RunnerCallee::batch(const std::vector<int> &slots) {
  return request(runner::Request::make(runner::Batch{std::vector<int64_t>(slots.begin(), slots.end())}));
}

MemorySummary RunnerCallee::memory() {
  request(runner::Request::make(runner::Memory{}));
  return lastMemory_;
}

void RunnerCallee::stop() {
  if (pid_ > 0) {
    channel_.send(runner::requestToJson(runner::Request::make(runner::Quit{})));
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  channel_.close();
  if (!scratch_.empty()) {
    // The candidate's files go with it; a link it left is removed, never followed.
    nftw(scratch_.c_str(), [](const char *path, const struct stat *, int, FTW *) { return remove(path); }, 64,
         FTW_DEPTH | FTW_PHYS);
    scratch_.clear();
  }
}

} // namespace cudaperf::worker
