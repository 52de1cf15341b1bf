// The channel between the evaluator's worker and its runner (docs/eval-result.md, "The runner's
// channel"; docs/security.md, "Trust split"): one JSON object per datagram on a SOCK_SEQPACKET
// socket pair (tools/cudaperf-eval/worker/Channel.cpp carries them). Typed the way the other
// protocols of Protocol.h are: one struct per message kind, read with the field path in every error.
//
// The runner's first message is `Ready`. Then the worker sends requests, `{"op": OP, ...}`, each
// answered once by an object without an op: the worker knows which request an answer is for, so an
// answer is read for that op (`answerFromJson(message, Op::Check, ...)`). Every answer may carry
// `error` (a CUDA error number) and `detail` (why a request was refused); the rest is the op's.
//
// Trust: the runner runs candidate code, so every answer and the `ready` message are hostile input
// to the worker. The one reader is strict: a known field of another type, a whole number out of its
// range or a missing required field fails naming the field (`runner answer (check):
// memory.failed_bytes: expected a whole number of at least 0, got -1`); the worker takes such an
// answer as a runner that broke the protocol. Unknown keys are kept (`extra`) and otherwise ignored.
// Numbers accept the strings "nan", "inf", "-inf" that cudaperf's JSON writer uses for non-finite
// values (an honest runner's NaN must not read as a broken protocol). Requests come from the
// trusted worker and are read by the runner just as strictly; an op this build does not know reads
// as UnknownOp.
//
// The round trip is exact for a message the reader takes (unknown keys and the key order are kept),
// but for a whole number where a number is expected (`"ms": 1`), which writes back as `1.0`.
#pragma once

#include "cudaperf/Support/Json.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cudaperf::schema::runner {

using support::Json;

// runtime::MemorySummary on the wire (the worker's memory event copies it into the result as
// `summary`); the runner writes every figure, the worker reads an absent one as 0. `bytes_by_kind`
// in the order written, its names as runtime::memoryKindName writes them (a name this build does
// not know is kept).
struct MemoryFigures {
  std::optional<uint64_t> deviceBytes, hostBytes;
  std::optional<std::vector<std::pair<std::string, uint64_t>>> bytesByKind;
  std::optional<uint64_t> liveAllocations, allocations, frees, failedAllocations, failedBytes, invalidFrees,
      untrackedFrees, refusedFrees, poolReservedBytes, pools;
  Json extra = Json::object();
  std::vector<std::string> keyOrder;
};

// One kernel launch the audit call recorded. `stream` is "timed", "default" or "other".
struct Launch {
  std::string kernel;
  std::array<uint32_t, 3> grid{}, block{};
  uint64_t dynamicSmemBytes = 0;
  std::string stream;
  Json extra = Json::object();
  std::vector<std::string> keyOrder;
};

// One argument of `bind`: a buffer (the CUDA IPC handle of its allocation in hex, the offset from
// the allocation's start to the data, the data's size) or a scalar (its bytes in hex).
struct BindArg {
  enum class Kind { Buffer, Scalar };
  Kind kind = Kind::Buffer;
  std::string hex; // `handle` or `scalar`
  uint64_t offset = 0;
  std::optional<uint64_t> bytes;
  Json extra = Json::object();
  std::vector<std::string> keyOrder;
};

// ---- Requests, each with the body of its answer (`Result`) -----------------------------------------
// Slots are the worker's numbers for bound argument sets: whole numbers from 0 to 2^31 - 1.

// Load the candidate's shared object (`path`, in the runner's scratch directory).
struct Load {
  std::string path;
  struct Result {
    std::optional<std::string> loadError; // absent: loaded
  };
};
// Map the argument buffers the worker exported and keep them as `slot`. Answer: `error` only.
struct Bind {
  int64_t slot = 0;
  std::vector<BindArg> args;
  struct Result {};
};
struct Unbind {
  int64_t slot = 0;
  struct Result {};
};
// One call, then a device-wide synchronize.
struct Check {
  int64_t slot = 0;
  struct Result {
    std::optional<int64_t> launchError;
    std::optional<uint64_t> outOfMemory; // out-of-memory answers the call's allocations got
    std::optional<MemoryFigures> memory; // what the candidate holds after the call
  };
};
// L2 written over, events around one call (`settle`: the queue settled first, Measure.h).
struct Timed {
  int64_t slot = 0;
  bool settle = false;
  struct Result {
    std::optional<double> ms;     // the events' span
    std::optional<double> hostMs; // the runner's clock while the entry issued its work
  };
};
// The audit call (Measure.h): its figures and the launches it recorded.
struct Audit {
  int64_t slot = 0;
  struct Result {
    std::optional<double> streamSpanMs, hostReturnMs, drainMs;
    // Counts, 0 to 2^31 - 1.
    std::optional<int64_t> kernels, kernelsDefaultStream, kernelsOtherStreams, pendingStreams, hostCopies,
        threadsLeft, attempts;
    std::optional<std::string> violation;
    std::optional<std::vector<Launch>> launches;
    std::optional<bool> launchesTruncated;
  };
};
// One call on each slot in a row, then a device-wide synchronize.
struct Batch {
  std::vector<int64_t> slots;
  struct Result {
    std::optional<int64_t> launchError;
  };
};
// What the candidate holds now.
struct Memory {
  struct Result {
    std::optional<MemoryFigures> memory;
  };
};
// The runner leaves (no answer).
struct Quit {
  struct Result {};
};
// An op this build does not know (the runner answers cudaErrorNotSupported).
struct UnknownOp {
  struct Result {};
};

using RequestBody = std::variant<Load, Bind, Unbind, Check, Timed, Audit, Batch, Memory, Quit, UnknownOp>;
// The answers' bodies, in the requests' order.
using AnswerBody = std::variant<Load::Result, Bind::Result, Unbind::Result, Check::Result, Timed::Result,
                                Audit::Result, Batch::Result, Memory::Result, Quit::Result, UnknownOp::Result>;

// The request kinds, in the variants' order.
enum class Op { Load, Bind, Unbind, Check, Timed, Audit, Batch, Memory, Quit, Unknown };

// The wire name of an op ("load", ..., "quit"); "" for Op::Unknown.
const char *opName(Op op);

struct Request {
  RequestBody body;
  std::string op; // as written; set by the reader and by make()
  Json extra = Json::object();
  std::vector<std::string> keyOrder;

  Op kind() const { return Op(body.index()); }
  template <class Body> static Request make(Body body);
  template <class Body> const Body *as() const { return std::get_if<Body>(&body); }
};

template <class Body> Request Request::make(Body body) {
  Request r;
  r.body = std::move(body);
  r.op = opName(r.kind());
  return r;
}

struct Answer {
  AnswerBody body;
  std::optional<int64_t> error;      // a CUDA error number (cudaSuccess: 0)
  std::optional<std::string> detail; // why the runner refused the request
  Json extra = Json::object();
  std::vector<std::string> keyOrder;

  Op kind() const { return Op(body.index()); }
  template <class Body> static Answer make(Body body, std::optional<int64_t> error = std::nullopt);
  template <class Body> const Body *as() const { return std::get_if<Body>(&body); }
};

template <class Body> Answer Answer::make(Body body, std::optional<int64_t> error) {
  Answer a;
  a.body = std::move(body);
  a.error = error;
  return a;
}

// The runner's confinement as runtime::SandboxStatus::toJson writes it: `complete`, `missing` (what
// this machine's kernel could not give) and `error` typed; its other figures (landlock_abi,
// seccomp, ...) kept as written in `extra`. The worker copies it into its sandbox event.
struct SandboxReport {
  std::optional<bool> complete;
  std::optional<std::vector<std::string>> missing;
  std::optional<std::string> error;
  Json extra = Json::object();
  std::vector<std::string> keyOrder;
};

// The runner's first message, `{"event": "ready", ...}`: its sandbox, its CUDA context's set-up
// time, or why it cannot run candidates (`retryable`: the device was full).
struct Ready {
  std::optional<SandboxReport> sandbox;
  std::optional<double> contextSeconds;
  std::optional<std::string> error;
  std::optional<bool> retryable;
  Json extra = Json::object();
  std::vector<std::string> keyOrder;
};

Json memoryFiguresToJson(const MemoryFigures &figures);
MemoryFigures memoryFiguresFromJson(const Json &object, const std::string &document);
Json sandboxReportToJson(const SandboxReport &report);
SandboxReport sandboxReportFromJson(const Json &object, const std::string &document);

Json requestToJson(const Request &request);
// Strict: not an object, no string `op`, a missing or mistyped field fails naming `document`
// ("runner request (bind): args[1].offset: missing").
Request requestFromJson(const Json &message, const std::string &document);

Json answerToJson(const Answer &answer);
// The answer to a request of kind `op`; strict (see above). Op::Quit and Op::Unknown read only
// `error` and `detail`.
Answer answerFromJson(const Json &message, Op op, const std::string &document);

Json readyToJson(const Ready &ready);
// Strict; `event` must be "ready".
Ready readyFromJson(const Json &message, const std::string &document);

} // namespace cudaperf::schema::runner
