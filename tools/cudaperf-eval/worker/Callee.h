// Who runs an implementation's entry point (docs/security.md, "Trust split"). The task's own
// baseline is trusted code and runs in the worker (InProcessCallee). A candidate runs in the
// runner (RunnerCallee): a child process confined before the candidate is loaded, holding only
// its CUDA context and the argument buffers the worker exports to it through CUDA IPC, taking
// calls on command over a socket. Everything the runner says is a claim: the worker prepares
// every call's inputs and outputs itself, checks them itself, and measures each call's time on
// its own clock beside the runner's event figure. The messages are schema::runner's
// (cudaperf/Schema/RunnerProtocol.h); an answer that does not read is a runner that broke the
// protocol, and is lost.
#pragma once

#include "Channel.h"
#include "DeviceArgs.h"
#include "Interpose.h"
#include "Measure.h"

#include "cudaperf/Runtime/AllocationLedger.h"
#include "cudaperf/Runtime/Outcome.h"
#include "cudaperf/Runtime/Sandbox.h"
#include "cudaperf/Schema/RunnerProtocol.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::worker {

struct CallResult {
  cudaError_t launchError = cudaSuccess; // cudaGetLastError right after the entry returned
  cudaError_t error = cudaSuccess;       // the synchronize after it, or a failed request
  double eventMs = 0;                    // timed calls: the events' span, as the callee reports it
  double wallMs = 0;                     // the worker's own clock around the whole request
  double hostMs = 0;                     // timed calls: the callee's clock while the entry issued its work
  uint64_t outOfMemory = 0;              // out-of-memory answers the entry's allocations got
  runtime::MemorySummary memory;         // what the implementation holds after the call
  // The runner is gone (killed by its sandbox, crashed, exited) or broke the protocol: the outcome
  // and why. Outcome::Ok while it is alive.
  runtime::Outcome lost = runtime::Outcome::Ok;
  std::string lostDetail;
  bool ok() const { return lost == runtime::Outcome::Ok && launchError == cudaSuccess && error == cudaSuccess; }
};

struct AuditReport {
  AuditResult audit;
  std::vector<LaunchRecord> launches;
  bool launchesTruncated = false;
};

class Callee {
public:
  virtual ~Callee() = default;
  // Makes the buffers callable; a slot number, or -1 (`error` says why).
  virtual int bind(const DeviceArgs &dev, std::string &error) = 0;
  virtual void unbind(int slot) = 0;
  // One call, then a device-wide synchronize.
  virtual CallResult check(int slot) = 0;
  // L2 written over (which also keeps the queue ahead of the call), events around one call,
  // waited for.
  virtual CallResult timed(int slot) = 0;
  // The audit call (Measure.h).
  virtual CallResult audit(int slot, AuditReport &report) = 0;
  // One call on each slot in a row, no flush between, then a device-wide synchronize (the
  // wall-clock check); none: the cost of the request itself.
  virtual CallResult batch(const std::vector<int> &slots) = 0;
  virtual runtime::MemorySummary memory() = 0;
};

// The trusted baseline, in this process.
class InProcessCallee : public Callee {
public:
  InProcessCallee(EntryFn fn, cudaStream_t stream, L2Flusher &flusher) : fn_(fn), stream_(stream), flusher_(flusher) {}
  int bind(const DeviceArgs &dev, std::string &error) override;
  void unbind(int slot) override { slots_.erase(slot); }
  CallResult check(int slot) override;
  CallResult timed(int slot) override;
  CallResult audit(int slot, AuditReport &report) override;
  CallResult batch(const std::vector<int> &slots) override;
  runtime::MemorySummary memory() override;

private:
  EntryFn fn_;
  cudaStream_t stream_;
  L2Flusher &flusher_;
  std::map<int, runtime::PackedArgs> slots_;
  int next_ = 0;
};

struct RunnerOptions {
  bool sandbox = true;            // false only with --isolation runner-unconfined (debugging)
  bool allowWeakSandbox = false;  // run even where the kernel lacks part of the confinement
  double cpuSeconds = 120;        // RLIMIT_CPU of the runner
  std::vector<std::string> extraReadPaths;
};

// The candidate, in a confined child process.
class RunnerCallee : public Callee {
public:
  ~RunnerCallee() override;
  // Starts the runner (its sandbox, then its CUDA context); "" or why not.
  std::string start(const RunnerOptions &options);
  // Waits for the runner's set-up: "" or why it failed (retryable: the device was full).
  std::string ready(bool &retryable);
  // The candidate's shared object, copied into the runner's scratch directory and loaded there:
  // "" or why not (a compile_error: a load failure is the candidate's).
  std::string load(const std::string &soPath);
  // The runner's confinement as its `ready` message reported it (none until a ready message was
  // read; empty when it had none), and as written on the wire (null without one; the sandbox
  // event copies it).
  const std::optional<schema::runner::SandboxReport> &sandboxReport() const { return sandboxReport_; }
  support::Json sandboxJson() const {
    return sandboxReport_ ? schema::runner::sandboxReportToJson(*sandboxReport_) : support::Json();
  }
  int pid() const { return pid_; }
  // The runner is gone (its sandbox killed it, say): the outcome that says so.
  bool lost() const { return lostSet_; }
  runtime::Outcome lostOutcome() const { return lost_; }

  int bind(const DeviceArgs &dev, std::string &error) override;
  void unbind(int slot) override;
  CallResult check(int slot) override;
  CallResult timed(int slot) override;
  CallResult audit(int slot, AuditReport &report) override;
  CallResult batch(const std::vector<int> &slots) override;
  runtime::MemorySummary memory() override;
  // Ends the runner (killed if it does not leave at once) and removes its scratch directory.
  void stop();

private:
  Channel channel_;
  int pid_ = -1;
  std::string scratch_;
  std::optional<schema::runner::SandboxReport> sandboxReport_;
  runtime::MemorySummary lastMemory_;
  bool lostSet_ = false;
  runtime::Outcome lost_ = runtime::Outcome::Ok;
  std::string lostDetail_;

  // One request and its answer, read for the request's op; on a broken channel or an answer that
  // does not read, the result says why the runner is gone.
  CallResult request(const schema::runner::Request &message, schema::runner::Answer *answer = nullptr);
  void markLost(const std::string &channelError);
};

// The runner's side: never returns. `fd` is its end of the channel.
[[noreturn]] void runRunner(int fd, const std::string &scratch, double cpuSeconds, bool sandbox,
                            const std::vector<std::string> &extraReadPaths);

// A memory summary on the wire (the runner's answers, the worker's memory event) and back; a kind
// name this build does not know, and a kind of 0 bytes, are dropped.
schema::runner::MemoryFigures memoryFigures(const runtime::MemorySummary &m);
runtime::MemorySummary memorySummary(const schema::runner::MemoryFigures &figures);
support::Json memorySummaryJson(const runtime::MemorySummary &m);

} // namespace cudaperf::worker
