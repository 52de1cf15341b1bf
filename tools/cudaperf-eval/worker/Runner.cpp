// The runner: the only process where candidate code runs (docs/security.md, "Trust split"). It
// confines itself first (lib/Runtime/Sandbox), then creates its CUDA context, then takes requests
// from the worker on its channel: load the candidate (copied into its scratch directory), bind
// argument buffers the worker exported through CUDA IPC, and calls. It holds no event file, no
// manifest, no expected output and no other process's memory; what it answers are claims the
// worker checks.
#include "AllocationInterpose.h"
#include "Callee.h"
#include "DeviceInfo.h"

#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/DeviceData.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <sys/prctl.h>
#include <unistd.h>

namespace cudaperf::worker {

using support::Json;
namespace runner = schema::runner;

namespace {

struct Bound {
  std::vector<void *> mapped;             // what cudaIpcOpenMemHandle returned, to close
  std::vector<std::vector<unsigned char>> scalars;
  std::vector<void *> pointers;           // in the entry shim's shape
};

// Read access: the system, the CUDA installation, the worker's own executable and libraries.
std::vector<std::string> readPaths(const std::vector<std::string> &extra) {
  std::vector<std::string> paths = {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/proc", "/sys",
                                    "/opt/nvidia", "/usr/local/cuda", "/usr/local/nvidia", "/run/nvidia-persistenced"};
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/'));
    paths.push_back(dir);
  }
  if (const char *ld = getenv("LD_LIBRARY_PATH")) {
    std::string s = ld;
    for (size_t start = 0; start <= s.size();) {
      size_t end = s.find(':', start);
      if (end == std::string::npos)
        end = s.size();
      if (end > start)
        paths.push_back(s.substr(start, end - start));
      start = end + 1;
    }
  }
  paths.insert(paths.end(), extra.begin(), extra.end());
  return paths;
}

// The devices the driver opens for writing.
std::vector<std::string> deviceFiles() {
  std::vector<std::string> files = {"/dev/null", "/dev/zero", "/dev/urandom", "/dev/nvidiactl", "/dev/nvidia-uvm",
                                    "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset", "/dev/nvidia-caps"};
  for (int i = 0; i < 64; ++i)
    files.push_back("/dev/nvidia" + std::to_string(i));
  return files;
}

[[noreturn]] void quit(int code) { _exit(code); }

class Runner {
public:
  Runner(int fd) : channel_(fd) {}
  [[noreturn]] void serve(const std::string &scratch, double cpuSeconds, bool sandbox,
                          const std::vector<std::string> &extra);

private:
  Channel channel_;
  cudaStream_t stream_ = nullptr;
  L2Flusher flusher_;
  EntryFn fn_ = nullptr;
  std::map<int, Bound> slots_;

  void reply(const Json &o) {
    if (!channel_.send(o))
      quit(3);
  }
  runner::Answer handle(const runner::Request &req);
  runner::Answer load(const runner::Load &req);
  runner::Answer bind(const runner::Bind &req);
  runner::Answer call(const runner::Request &req);
  void *const *args(int64_t slot);
};

void *const *Runner::args(int64_t slot) {
  auto it = slots_.find(int(slot));
  return it == slots_.end() ? nullptr : it->second.pointers.data();
}

runner::Answer Runner::load(const runner::Load &req) {
  runner::Load::Result out;
  void *h = dlopen(req.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    out.loadError = std::string("loading the built object failed: ") + dlerror();
    return runner::Answer::make(out);
  }
  fn_ = reinterpret_cast<EntryFn>(dlsym(h, runtime::kEntryShimSymbol));
  if (!fn_)
    out.loadError = std::string("built object has no ") + runtime::kEntryShimSymbol;
  return runner::Answer::make(out);
}

runner::Answer Runner::bind(const runner::Bind &req) {
  Bound b;
  for (const runner::BindArg &a : req.args) {
    if (a.kind == runner::BindArg::Kind::Buffer) {
      cudaIpcMemHandle_t h;
      if (!ipcHandleFromHex(a.hex, h))
        return runner::Answer::make(runner::Bind::Result{}, int(cudaErrorInvalidValue));
      void *p = nullptr;
      WorkerAllocations own;
      if (cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess)) {
        for (void *m : b.mapped)
          cudaIpcCloseMemHandle(m);
        return runner::Answer::make(runner::Bind::Result{}, int(e));
      }
      b.mapped.push_back(p);
      b.scalars.emplace_back();
      b.pointers.push_back(static_cast<unsigned char *>(p) + a.offset);
    } else {
      std::vector<unsigned char> bytes(a.hex.size() / 2);
      runtime::hexDecode(a.hex, bytes.data(), bytes.size());
      bytes.resize(std::max<size_t>(bytes.size(), 8));
      b.scalars.push_back(std::move(bytes));
      b.pointers.push_back(nullptr);
    }
  }
  // Scalars point into their own storage, which must not move any more.
  for (size_t i = 0; i < b.pointers.size(); ++i)
    if (!b.pointers[i])
      b.pointers[i] = b.scalars[i].data();
  slots_[int(req.slot)] = std::move(b);
  return runner::Answer::make(runner::Bind::Result{});
}

runner::Answer Runner::call(const runner::Request &req) {
  if (const runner::Batch *batch = req.as<runner::Batch>()) {
    std::vector<void *const *> calls;
    for (int64_t slot : batch->slots) {
      void *const *a = args(slot);
      if (!a || !fn_)
        return runner::Answer::make(runner::Batch::Result{}, int(cudaErrorInvalidValue));
      calls.push_back(a);
    }
    for (void *const *a : calls)
      callEntry(fn_, a, stream_);
    cudaError_t launch = cudaGetLastError();
    runner::Batch::Result out;
    out.launchError = int(launch);
    return runner::Answer::make(out, int(launch ? cudaSuccess : cudaDeviceSynchronize()));
  }
  int64_t slot = req.as<runner::Check>()   ? req.as<runner::Check>()->slot
                 : req.as<runner::Timed>() ? req.as<runner::Timed>()->slot
                                           : req.as<runner::Audit>()->slot;
  void *const *a = args(slot);
  if (!a || !fn_) {
    // An unknown slot or no candidate: the error alone, in the op's answer.
    runner::Answer out;
    out.error = int(!a ? cudaErrorInvalidValue : cudaErrorInvalidDeviceFunction);
    if (req.as<runner::Check>())
      out.body = runner::Check::Result{};
    else if (req.as<runner::Timed>())
      out.body = runner::Timed::Result{};
    else
      out.body = runner::Audit::Result{};
    return out;
  }
  if (const runner::Timed *timed = req.as<runner::Timed>()) {
    double ms = 0, host = 0;
    cudaError_t e = timedCall(fn_, a, stream_, flusher_, ms, &host, timed->settle);
    runner::Timed::Result out;
    out.ms = ms;
    out.hostMs = host;
    return runner::Answer::make(out, int(e));
  }
  if (req.as<runner::Check>()) {
    takeCandidateOutOfMemory();
    callEntry(fn_, a, stream_);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = launch ? cudaSuccess : cudaDeviceSynchronize();
    if (!launch && !sync)
      launch = cudaGetLastError();
    runner::Check::Result out;
    out.launchError = int(launch);
    out.outOfMemory = takeCandidateOutOfMemory();
    out.memory = memoryFigures(candidateMemory());
    return runner::Answer::make(out, int(sync));
  }
  AuditResult audit;
  cudaError_t e = auditCall(fn_, a, stream_, audit);
  runner::Audit::Result out;
  out.streamSpanMs = audit.streamSpanMs;
  out.hostReturnMs = audit.hostReturnMs;
  out.drainMs = audit.drainMs;
  out.kernels = audit.activity.kernels;
  out.kernelsDefaultStream = audit.activity.kernelsOnDefaultStream;
  out.kernelsOtherStreams = audit.activity.kernelsOnOtherStreams;
  out.pendingStreams = audit.pendingStreams;
  out.hostCopies = audit.activity.hostCopies;
  out.threadsLeft = audit.threadsLeft;
  out.attempts = audit.attempts;
  out.violation = audit.violation;
  std::vector<runner::Launch> launches;
  for (const LaunchRecord &l : recordedLaunches()) {
    runner::Launch w;
    w.kernel = l.kernel;
    for (int d = 0; d < 3; ++d) {
      w.grid[d] = l.grid[d];
      w.block[d] = l.block[d];
    }
    w.dynamicSmemBytes = l.dynamicSmemBytes;
    w.stream = l.stream;
    launches.push_back(std::move(w));
  }
  out.launches = std::move(launches);
  out.launchesTruncated = recordedLaunchesTruncated();
  return runner::Answer::make(out, int(e));
}

runner::Answer Runner::handle(const runner::Request &req) {
  switch (req.kind()) {
  case runner::Op::Load:
    return load(*req.as<runner::Load>());
  case runner::Op::Bind:
    return bind(*req.as<runner::Bind>());
  case runner::Op::Unbind: {
    auto it = slots_.find(int(req.as<runner::Unbind>()->slot));
    if (it != slots_.end()) {
      WorkerAllocations own;
      for (void *m : it->second.mapped)
        cudaIpcCloseMemHandle(m);
      slots_.erase(it);
    }
    return runner::Answer::make(runner::Unbind::Result{});
  }
  case runner::Op::Memory: {
    runner::Memory::Result out;
    out.memory = memoryFigures(candidateMemory());
    return runner::Answer::make(out);
  }
  case runner::Op::Quit:
    quit(0);
  case runner::Op::Check:
  case runner::Op::Timed:
  case runner::Op::Audit:
  case runner::Op::Batch:
    return call(req);
  case runner::Op::Unknown:
    break;
  }
  return runner::Answer::make(runner::UnknownOp::Result{}, int(cudaErrorNotSupported));
}

void Runner::serve(const std::string &scratch, double cpuSeconds, bool sandbox, const std::vector<std::string> &extra) {
  auto began = std::chrono::steady_clock::now();
  runner::Ready ready;
  runtime::SandboxStatus status;
  runtime::SandboxPolicy finalPolicy;
  if (sandbox) {
    runtime::SandboxPolicy policy;
    policy.scratchDir = scratch;
    policy.readPaths = readPaths(extra);
    policy.writeFiles = deviceFiles();
    policy.forbidExecMappings = false; // after the CUDA context: the driver sets up its own mappings
    policy.cpuSeconds = uint64_t(std::max(1.0, cpuSeconds));
    policy.fileBytes = uint64_t(64) << 20;
    // For finding what a rule costs the driver when the runner is started by hand
    // (scripts/gpu/runner-probe.py); a worker never passes it on (it builds the runner's environment).
    if (const char *skip = getenv("CUDAPERF_SANDBOX_SKIP")) {
      std::string s = skip;
      policy.landlock = s.find("landlock") == std::string::npos;
      policy.seccomp = s.find("seccomp") == std::string::npos;
      if (s.find("readall") != std::string::npos)
        policy.readPaths.push_back("/");
      if (s.find("writeall") != std::string::npos)
        policy.writeDirs.push_back("/");
      // "dir=/x,dir=/y": more writable directories.
      for (size_t at = s.find("dir="); at != std::string::npos; at = s.find("dir=", at + 4))
        policy.writeDirs.push_back(s.substr(at + 4, s.find(',', at) == std::string::npos ? std::string::npos
                                                                                           : s.find(',', at) - at - 4));
      if (s.find("nocaps") != std::string::npos)
        policy.writeFiles.erase(std::remove(policy.writeFiles.begin(), policy.writeFiles.end(), "/dev/nvidia-caps"),
                                policy.writeFiles.end()); // the probe of /dev/nvidia-caps: without it
      if (s.find("devdir") != std::string::npos)
        policy.readPaths.push_back("/dev");
    }
    // The driver writes below /proc/self while it creates the context (measured on the H100 host:
    // without it, cudaErrorOperatingSystem); a second layer takes that away before any candidate
    // code runs (its own /proc/self/mem included).
    runtime::SandboxPolicy setUp = policy;
    setUp.writeDirs.push_back("/proc/self");
    status = runtime::applySandbox(setUp);
    finalPolicy = policy;
  }
  // The context, the stream and the L2 flush buffer (its write ahead of each timed call).
  std::string error;
  bool retryable = false;
  {
    WorkerAllocations own;
    if (cudaError_t e = cudaSetDevice(0)) {
      error = "no usable CUDA device in the runner: " + cudaErrorText(e);
      retryable = e == cudaErrorMemoryAllocation;
    } else if (cudaError_t e = cudaFree(nullptr)) {
      error = "CUDA context creation failed in the runner: " + cudaErrorText(e);
      retryable = true;
    } else if (cudaError_t e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)) {
      error = "cudaStreamCreate in the runner: " + cudaErrorText(e);
    } else {
      cudaDeviceProp prop;
      cudaGetDeviceProperties(&prop, 0);
      if (cudaError_t e = flusher_.allocate(size_t(prop.l2CacheSize), 10)) {
        error = "L2 flush buffer in the runner: " + cudaErrorText(e);
        retryable = e == cudaErrorMemoryAllocation;
      }
    }
  }
  if (sandbox && error.empty()) {
    if (status.landlockFiles && !runtime::addFileRulesLayer(finalPolicy, status) && status.error.empty())
      status.missing.push_back("the second file-rules layer");
    runtime::forbidNewExecutableMappings(status);
  }
  if (sandbox) {
    ready.sandbox = runner::sandboxReportFromJson(status.toJson(), "the runner's sandbox status");
  } else {
    ready.sandbox.emplace();
    ready.sandbox->complete = false;
    ready.sandbox->missing = std::vector<std::string>{"all confinement (--isolation runner-unconfined)"};
  }
  ready.contextSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (sandbox && !status.error.empty() && error.empty())
    error = "the runner's sandbox could not be applied: " + status.error;
  if (!error.empty()) {
    ready.error = error;
    ready.retryable = retryable;
  }
  reply(runner::readyToJson(ready));
  if (!error.empty())
    quit(3);
  while (true) {
    Json message;
    std::string why;
    if (!channel_.receive(message, -1, why))
      quit(0); // the worker is gone or done
    runner::Answer out;
    try {
      out = handle(runner::requestFromJson(message, "runner request"));
    } catch (const std::exception &e) {
      out = runner::Answer::make(runner::UnknownOp::Result{}, int(cudaErrorInvalidValue));
      out.detail = std::string("bad request: ") + e.what();
    }
    reply(runner::answerToJson(out));
  }
}

} // namespace

void runRunner(int fd, const std::string &scratch, double cpuSeconds, bool sandbox,
               const std::vector<std::string> &extraReadPaths) {
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  Runner runner(fd);
  runner.serve(scratch, cpuSeconds, sandbox, extraReadPaths);
}

} // namespace cudaperf::worker
