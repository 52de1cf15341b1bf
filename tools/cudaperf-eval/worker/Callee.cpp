#include "Callee.h"
#include "AllocationInterpose.h"
#include "DeviceInfo.h"

#include <chrono>
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

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// The memory kinds by name, for reading a runner's summary back.
const MemoryKind kKinds[] = {MemoryKind::Device,     MemoryKind::Pitched,        MemoryKind::Array,
                             MemoryKind::Managed,    MemoryKind::Async,          MemoryKind::Physical,
                             MemoryKind::PinnedHost, MemoryKind::RegisteredHost};

uint64_t u64(const Json &o, const char *key) {
  const Json *v = support::member(o, key);
  return v && v->is_number_unsigned() ? v->get<uint64_t>() : 0;
}

cudaError_t errorFrom(const Json &o, const char *key) {
  const Json *v = support::member(o, key);
  if (!v || !v->is_number_integer())
    return cudaSuccess;
  int e = v->get<int>();
  // A hostile runner's number is only ever an error of its own: anything out of range is one too.
  return e >= 0 && e < 10000 ? cudaError_t(e) : cudaErrorUnknown;
}

double number(const Json &o, const char *key) {
  const Json *v = support::member(o, key);
  return v && v->is_number() ? v->get<double>() : 0.0;
}

} // namespace

Json memorySummaryJson(const MemorySummary &m) {
  Json o = Json::object();
  o["device_bytes"] = m.deviceBytes;
  o["host_bytes"] = m.hostBytes;
  Json kinds = Json::object();
  for (const auto &[kind, bytes] : m.bytesByKind)
    kinds[runtime::memoryKindName(kind)] = bytes;
  o["bytes_by_kind"] = kinds;
  o["live_allocations"] = m.liveAllocations;
  o["allocations"] = m.allocations;
  o["frees"] = m.frees;
  o["failed_allocations"] = m.failedAllocations;
  o["failed_bytes"] = m.failedBytes;
  o["invalid_frees"] = m.invalidFrees;
  o["untracked_frees"] = m.untrackedFrees;
  o["refused_frees"] = m.refusedFrees;
  o["pool_reserved_bytes"] = m.poolReservedBytes;
  o["pools"] = m.pools;
  return o;
}

MemorySummary memorySummaryFromJson(const Json &o) {
  MemorySummary m;
  if (!o.is_object())
    return m;
  m.deviceBytes = u64(o, "device_bytes");
  m.hostBytes = u64(o, "host_bytes");
  if (const Json *kinds = support::member(o, "bytes_by_kind"); kinds && kinds->is_object())
    for (MemoryKind k : kKinds)
      if (uint64_t b = u64(*kinds, runtime::memoryKindName(k)))
        m.bytesByKind[k] = b;
  m.liveAllocations = u64(o, "live_allocations");
  m.allocations = u64(o, "allocations");
  m.frees = u64(o, "frees");
  m.failedAllocations = u64(o, "failed_allocations");
  m.failedBytes = u64(o, "failed_bytes");
  m.invalidFrees = u64(o, "invalid_frees");
  m.untrackedFrees = u64(o, "untracked_frees");
  m.refusedFrees = u64(o, "refused_frees");
  m.poolReservedBytes = u64(o, "pool_reserved_bytes");
  m.pools = u64(o, "pools");
  return m;
}

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

CallResult RunnerCallee::request(const Json &message, Json *answer) {
  CallResult r;
  if (lostSet_) {
    r.lost = lost_;
    r.lostDetail = lostDetail_;
    return r;
  }
  auto t0 = Clock::now();
  Json reply;
  std::string error;
  bool ok = channel_.send(message) && channel_.receive(reply, -1, error);
  r.wallMs = msSince(t0);
  if (!ok) {
    markLost(error.empty() ? "it closed the channel" : error);
    r.lost = lost_;
    r.lostDetail = lostDetail_;
    return r;
  }
  r.launchError = errorFrom(reply, "launch_error");
  r.error = errorFrom(reply, "error");
  r.eventMs = number(reply, "ms");
  r.hostMs = number(reply, "host_ms");
  r.outOfMemory = u64(reply, "out_of_memory");
  if (const Json *m = support::member(reply, "memory"))
    r.memory = lastMemory_ = memorySummaryFromJson(*m);
  if (answer)
    *answer = std::move(reply);
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
  sandboxJson_ = reply.value("sandbox", Json::object());
  if (std::string e = reply.value("error", ""); !e.empty()) {
    retryable = reply.value("retryable", false);
    return e;
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
  Json answer;
  CallResult r = request(Json{{"op", "load"}, {"path", dest}}, &answer);
  if (r.lost != Outcome::Ok)
    return r.lostDetail;
  return answer.value("load_error", "");
}

int RunnerCallee::bind(const DeviceArgs &dev, std::string &error) {
  cudaError_t e;
  Json args = dev.channelArgs(e);
  if (e) {
    error = "exporting the arguments: " + cudaErrorText(e);
    return -1;
  }
  static int next = 0;
  int slot = next++;
  Json answer;
  CallResult r = request(Json{{"op", "bind"}, {"slot", slot}, {"args", args}}, &answer);
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

void RunnerCallee::unbind(int slot) { request(Json{{"op", "unbind"}, {"slot", slot}}); }

CallResult RunnerCallee::check(int slot) { return request(Json{{"op", "check"}, {"slot", slot}}); }
CallResult RunnerCallee::timed(int slot) {
  return request(Json{{"op", "timed"}, {"slot", slot}, {"settle", settleTimedCalls()}});
}

CallResult RunnerCallee::audit(int slot, AuditReport &report) {
  Json answer;
  CallResult r = request(Json{{"op", "audit"}, {"slot", slot}}, &answer);
  if (!r.ok())
    return r;
  AuditResult &a = report.audit;
  a.streamSpanMs = number(answer, "stream_span_ms");
  a.hostReturnMs = number(answer, "host_return_ms");
  a.drainMs = number(answer, "drain_ms");
  a.pendingStreams = int(number(answer, "pending_streams"));
  a.threadsLeft = int(number(answer, "threads_left"));
  a.attempts = int(number(answer, "attempts"));
  a.activity.kernels = int(number(answer, "kernels"));
  a.activity.kernelsOnDefaultStream = int(number(answer, "kernels_default_stream"));
  a.activity.kernelsOnOtherStreams = int(number(answer, "kernels_other_streams"));
  a.activity.hostCopies = int(number(answer, "host_copies"));
  a.violation = answer.value("violation", "");
  report.launchesTruncated = answer.value("launches_truncated", false);
  if (const Json *ls = support::member(answer, "launches"); ls && ls->is_array())
    for (const Json &l : *ls) {
      if (report.launches.size() >= kMaxRecordedLaunches || !l.is_object())
        break;
      LaunchRecord rec;
      rec.kernel = l.value("kernel", "<unknown>").substr(0, 4096);
      for (int d = 0; d < 3; ++d) {
        rec.grid[d] = l.contains("grid") && l["grid"].is_array() && l["grid"].size() == 3 && l["grid"][d].is_number_unsigned()
                          ? l["grid"][d].get<unsigned>()
                          : 0;
        rec.block[d] = l.contains("block") && l["block"].is_array() && l["block"].size() == 3 &&
                               l["block"][d].is_number_unsigned()
                           ? l["block"][d].get<unsigned>()
                           : 0;
      }
      rec.dynamicSmemBytes = size_t(u64(l, "dynamic_smem_bytes"));
      std::string stream = l.value("stream", "other");
      rec.stream = stream == "timed" ? "timed" : stream == "default" ? "default" : "other";
      report.launches.push_back(std::move(rec));
    }
  return r;
}

CallResult RunnerCallee::batch(const std::vector<int> &slots) {
  return request(Json{{"op", "batch"}, {"slots", slots}});
}

MemorySummary RunnerCallee::memory() {
  request(Json{{"op", "memory"}});
  return lastMemory_;
}

void RunnerCallee::stop() {
  if (pid_ > 0) {
    channel_.send(Json{{"op", "quit"}});
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
