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

  void reply(Json o) {
    if (!channel_.send(o))
      quit(3);
  }
  Json handle(const Json &req);
  Json bind(const Json &req);
  Json call(const Json &req, const std::string &op);
  void *const *args(const Json &req, Json &error);
};

void *const *Runner::args(const Json &req, Json &error) {
  int slot = req.value("slot", -1);
  auto it = slots_.find(slot);
  if (it == slots_.end()) {
    error["error"] = int(cudaErrorInvalidValue);
    return nullptr;
  }
  return it->second.pointers.data();
}

Json Runner::bind(const Json &req) {
  Json out = Json::object();
  Bound b;
  const Json &args = req.at("args");
  for (const Json &a : args) {
    if (a.contains("handle")) {
      cudaIpcMemHandle_t h;
      if (!ipcHandleFromHex(a.at("handle").get<std::string>(), h)) {
        out["error"] = int(cudaErrorInvalidValue);
        return out;
      }
      void *p = nullptr;
      WorkerAllocations own;
      if (cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess)) {
        for (void *m : b.mapped)
          cudaIpcCloseMemHandle(m);
        out["error"] = int(e);
        return out;
      }
      b.mapped.push_back(p);
      b.scalars.emplace_back();
      b.pointers.push_back(static_cast<unsigned char *>(p) + a.at("offset").get<uint64_t>());
    } else {
      std::string hex = a.at("scalar").get<std::string>();
      std::vector<unsigned char> bytes(hex.size() / 2);
      runtime::hexDecode(hex, bytes.data(), bytes.size());
      bytes.resize(std::max<size_t>(bytes.size(), 8));
      b.scalars.push_back(std::move(bytes));
      b.pointers.push_back(nullptr);
    }
  }
  // Scalars point into their own storage, which must not move any more.
  for (size_t i = 0; i < b.pointers.size(); ++i)
    if (!b.pointers[i])
      b.pointers[i] = b.scalars[i].data();
  slots_[req.at("slot").get<int>()] = std::move(b);
  return out;
}

Json Runner::call(const Json &req, const std::string &op) {
  Json out = Json::object();
  if (op == "batch") {
    std::vector<void *const *> calls;
    for (const Json &slot : req.at("slots")) {
      auto it = slots_.find(slot.get<int>());
      if (it == slots_.end() || !fn_) {
        out["error"] = int(cudaErrorInvalidValue);
        return out;
      }
      calls.push_back(it->second.pointers.data());
    }
    for (void *const *a : calls)
      callEntry(fn_, a, stream_);
    cudaError_t launch = cudaGetLastError();
    out["launch_error"] = int(launch);
    out["error"] = int(launch ? cudaSuccess : cudaDeviceSynchronize());
    return out;
  }
  void *const *a = args(req, out);
  if (!a)
    return out;
  if (!fn_) {
    out["error"] = int(cudaErrorInvalidDeviceFunction);
    return out;
  }
  if (op == "timed") {
    double ms = 0, host = 0;
    out["error"] = int(timedCall(fn_, a, stream_, flusher_, ms, &host, req.value("settle", false)));
    out["ms"] = ms;
    out["host_ms"] = host;
  } else if (op == "check") {
    takeCandidateOutOfMemory();
    callEntry(fn_, a, stream_);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = launch ? cudaSuccess : cudaDeviceSynchronize();
    if (!launch && !sync)
      launch = cudaGetLastError();
    out["launch_error"] = int(launch);
    out["error"] = int(sync);
    out["out_of_memory"] = takeCandidateOutOfMemory();
    out["memory"] = memorySummaryJson(candidateMemory());
  } else if (op == "audit") {
    AuditResult audit;
    cudaError_t e = auditCall(fn_, a, stream_, audit);
    out["error"] = int(e);
    out["stream_span_ms"] = audit.streamSpanMs;
    out["host_return_ms"] = audit.hostReturnMs;
    out["drain_ms"] = audit.drainMs;
    out["kernels"] = audit.activity.kernels;
    out["kernels_default_stream"] = audit.activity.kernelsOnDefaultStream;
    out["kernels_other_streams"] = audit.activity.kernelsOnOtherStreams;
    out["pending_streams"] = audit.pendingStreams;
    out["host_copies"] = audit.activity.hostCopies;
    out["threads_left"] = audit.threadsLeft;
    out["attempts"] = audit.attempts;
    out["violation"] = audit.violation;
    Json launches = Json::array();
    for (const LaunchRecord &l : recordedLaunches())
      launches.push_back({{"kernel", l.kernel},
                          {"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                          {"block", {l.block[0], l.block[1], l.block[2]}},
                          {"dynamic_smem_bytes", l.dynamicSmemBytes},
                          {"stream", l.stream}});
    out["launches"] = std::move(launches);
    out["launches_truncated"] = recordedLaunchesTruncated();
  }
  return out;
}

Json Runner::handle(const Json &req) {
  std::string op = req.value("op", "");
  if (op == "load") {
    Json out = Json::object();
    void *h = dlopen(req.at("path").get<std::string>().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      out["load_error"] = std::string("loading the built object failed: ") + dlerror();
      return out;
    }
    fn_ = reinterpret_cast<EntryFn>(dlsym(h, runtime::kEntryShimSymbol));
    if (!fn_)
      out["load_error"] = std::string("built object has no ") + runtime::kEntryShimSymbol;
    return out;
  }
  if (op == "bind")
    return bind(req);
  if (op == "unbind") {
    auto it = slots_.find(req.value("slot", -1));
    if (it != slots_.end()) {
      WorkerAllocations own;
      for (void *m : it->second.mapped)
        cudaIpcCloseMemHandle(m);
      slots_.erase(it);
    }
    return Json::object();
  }
  if (op == "memory")
    return Json{{"memory", memorySummaryJson(candidateMemory())}};
  if (op == "quit")
    quit(0);
  if (op == "check" || op == "timed" || op == "audit" || op == "batch")
    return call(req, op);
  return Json{{"error", int(cudaErrorNotSupported)}};
}

void Runner::serve(const std::string &scratch, double cpuSeconds, bool sandbox, const std::vector<std::string> &extra) {
  auto began = std::chrono::steady_clock::now();
  Json ready = Json::object();
  ready["event"] = "ready";
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
  if (sandbox)
    ready["sandbox"] = status.toJson();
  else
    ready["sandbox"] = Json{{"complete", false}, {"missing", {"all confinement (--isolation runner-unconfined)"}}};
  ready["context_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (sandbox && !status.error.empty() && error.empty())
    error = "the runner's sandbox could not be applied: " + status.error;
  if (!error.empty()) {
    ready["error"] = error;
    ready["retryable"] = retryable;
  }
  reply(std::move(ready));
  if (!error.empty())
    quit(3);
  while (true) {
    Json req;
    std::string why;
    if (!channel_.receive(req, -1, why))
      quit(0); // the worker is gone or done
    Json out;
    try {
      out = handle(req);
    } catch (const std::exception &e) {
      out = Json{{"error", int(cudaErrorInvalidValue)}, {"detail", std::string("bad request: ") + e.what()}};
    }
    reply(std::move(out));
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
