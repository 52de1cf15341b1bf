// The evaluator's protocols (docs/eval-result.md, "Worker protocol"): typed the way the documents
// of lib/Schema are, one struct per message, read with the field path in every error.
//
// The worker's event file: one JSON object per line, `{"event": KIND, ..., "t": SECONDS}`. Each
// kind has a struct in `events::`; a WorkerEvent holds the fields every kind may carry (`t`,
// `impl`, `config`) and one of them. Parts that the evaluator copies into its result as they are
// (a device's properties, a check's mismatch, an audit's figures and launches, a timing's figures,
// a memory summary, a counters document) are JSON: the result keeps their keys (EvalResult.h).
//
// The event file is written by a process that may run candidate code, so it is untrusted input.
// Two readers: `workerEventFromJson` refuses a line whose known fields have the wrong type, naming
// the field (`events: verdict.outcome: expected a string, got 3`); `readWorkerEvents` is the
// evaluator's: it never fails, drops lines that are not an object with a string `event` (a torn
// last line), and reads a known field of the wrong type as absent (kept verbatim in `extra`), which
// is what the evaluator has always done with such fields. An event of a kind this build does not
// know is kept as `events::Unknown` (its `t` still counts as the worker's last sign of life).
//
// The round trip is exact for a line read by either reader: unknown keys and the key order are kept.
#pragma once

#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace cudaperf::schema {

using support::Json;

namespace events {

// The worker's set-up is done: `pool` (it waited for its job), its isolation, and the CUDA
// context's set-up time and the job's wait for it.
struct Start {
  std::optional<bool> pool;
  std::optional<std::string> isolation;
  std::optional<double> contextSeconds, contextWaitSeconds;
};

// One GPU: `properties` (name, compute_capability, arch, ..., driver_version, runtime_version,
// uuid) as the worker writes them, then its index and the worker's pid.
struct Device {
  Json properties = Json::object();
  std::optional<int64_t> index, pid;
};

// How the worker reaches the holder's data: "ipc" (mapped) or "copy" (a copy of its own, and why).
struct DeviceData {
  std::optional<std::string> mode;
  std::optional<int64_t> copiedSets;
  std::optional<std::string> reason;
};

// One input set of a configuration (`config`): its seed and the reference's time.
struct Reference {
  std::optional<bool> cached;
  std::optional<int64_t> set;
  std::optional<uint64_t> seed;
  std::optional<double> ms;
};

// Written before every step that runs implementation code (`impl`, `config`).
struct Phase {
  std::optional<std::string> step;
  std::optional<int64_t> set;
};

// One comparison of an implementation's outputs; `mismatch`: where it failed (argument, index,
// got, expected, bad_elements, nan_elements) and `input_modified`.
struct Check {
  std::optional<int64_t> set;
  std::optional<uint64_t> seed;
  std::optional<std::string> step;
  std::optional<bool> pass;
  Json mismatch = Json::object();
};

// The audit call: its figures (stream_span_ms, ..., violation, launches, launches_truncated).
struct Audit {
  Json figures = Json::object();
};

// An implementation's timing at one configuration: `figures` (median_ms, ..., runs) come first
// on the wire; `cached` when an earlier worker's line is reused.
struct Timing {
  Json figures = Json::object();
  std::optional<bool> stable;
  std::optional<Json> integrity;
  std::optional<bool> cached;
};

// An implementation's memory accounting: `summary` (device_bytes, ...) first on the wire.
struct Memory {
  Json summary = Json::object();
  std::optional<uint64_t> heldBytes, peakHeldBytes;
};

// The worker waited for device memory.
struct MemoryWait {
  std::optional<double> seconds;
};

// A call again after the device was full.
struct Retry {
  std::optional<int64_t> set;
  std::optional<std::string> reason;
  std::optional<double> pauseSeconds;
};

// The holder's data checked after an implementation ran.
struct SharedData {
  std::optional<std::string> after;
  std::optional<bool> intact;
  std::optional<std::string> detail;
};

// Where the candidate ran and how it was confined (`runner`: the runner's sandbox report).
struct Sandbox {
  std::optional<std::string> isolation;
  std::optional<Json> runner;
  std::optional<int64_t> pid;
};

// An implementation's verdict: an outcome name (docs/eval-result.md), kept as written.
struct Verdict {
  std::optional<std::string> outcome, detail;
};

// Hardware counters of one configuration: the counters document's members and `available`.
struct Counters {
  Json document = Json::object();
  std::optional<bool> available;
};

// The worker cannot evaluate; `retryable` when the cause is passing (the GPU was full).
struct Error {
  std::optional<std::string> detail;
  std::optional<bool> retryable;
};

// The worker's last line.
struct Done {};

// A kind this build does not know (its name is WorkerEvent::name).
struct Unknown {};

} // namespace events

using WorkerEventBody =
    std::variant<events::Start, events::Device, events::DeviceData, events::Reference, events::Phase, events::Check,
                 events::Audit, events::Timing, events::Memory, events::MemoryWait, events::Retry, events::SharedData,
                 events::Sandbox, events::Verdict, events::Counters, events::Error, events::Done, events::Unknown>;

// One line of the worker's event file.
struct WorkerEvent {
  WorkerEventBody body;
  std::string name; // the `event` string as written; set by the readers and by make()
  std::optional<double> t;
  std::optional<std::string> impl, config;
  // Read: the keys the kind does not name and known keys of the wrong type (the evaluator's
  // reader), in the line's order (`keyOrder`). Written events leave them empty.
  Json extra = Json::object();
  std::vector<std::string> keyOrder;

  template <class Body> static WorkerEvent make(Body body);
  template <class Body> const Body *as() const { return std::get_if<Body>(&body); }
  template <class Body> bool is() const { return std::holds_alternative<Body>(body); }
};

// The wire name of a known kind ("start", "memory_wait", ...); "" for events::Unknown.
const char *workerEventName(const WorkerEventBody &body);

template <class Body> WorkerEvent WorkerEvent::make(Body body) {
  WorkerEvent e;
  e.body = std::move(body);
  e.name = workerEventName(e.body);
  return e;
}

// A line in the worker's order: `event` first (after the figures for timing and memory), `t` last.
Json workerEventToJson(const WorkerEvent &event);
// Strict: a line that is not an object, has no string `event`, or a known field of another type
// fails naming `document` and the field.
WorkerEvent workerEventFromJson(const Json &line, const std::string &document);
// The evaluator's reader of a whole event file (see above); never throws.
std::vector<WorkerEvent> readWorkerEvents(std::string_view text);
// The line's members without those that route it (event, t, impl, config), in its order: what the
// result copies of a check, an audit, a memory summary, a sandbox, counters.
Json workerEventPayload(const WorkerEvent &event);

// ---- A pool worker's job (`cudaperf-eval-worker --pool`): one line on its stdin -----------------
// The worker's arguments, and `handed_at`: the evaluator's CLOCK_MONOTONIC in seconds when it wrote
// the line (the job's wait for the worker's CUDA context). Strict: a malformed job is refused naming
// the field.
struct PoolJob {
  std::vector<std::string> argv;
  std::optional<double> handedAt;
  Json extra = Json::object();
  std::vector<std::string> keyOrder;
};
Json poolJobToJson(const PoolJob &job);
PoolJob poolJobFromJson(const Json &line, const std::string &document);

// ---- The data holder (`cudaperf-eval-worker --holder`, docs/eval-result.md "Data on the device") ----
// One JSON request per line on its stdin, one answer per line. Both ends are trusted (the holder
// runs only the task's reference), so there is one, strict, reader: an error names the field
// (`holder answer (prepared): bytes: expected a whole number of at least 0, got -1`).
namespace holder {

// prepare: how a pytorch-to-cuda task's expected outputs are made (cudaperf-torch-reference).
struct TorchReference {
  std::optional<std::string> program;
  std::optional<std::vector<std::string>> args;
  std::optional<std::string> timingPath; // "": not timed
  std::optional<double> timeoutSeconds;
  std::optional<std::string> logPath;
  Json extra = Json::object();
  std::vector<std::string> keyOrder;
};

// Make a task's input sets and expected outputs and publish their manifest. `taskDir`, `seed` and
// `sets` are required; either `referenceSo` or `torch` says how the expected outputs are computed.
struct Prepare {
  std::string taskDir;
  std::optional<std::vector<std::string>> configs;
  uint64_t seed = 0;
  int64_t sets = 0;
  std::optional<std::string> manifest;
  std::optional<double> memoryWaitSeconds;
  std::optional<uint64_t> setCacheLimitBytes;
  std::optional<std::string> setCache, referenceSo, referenceId;
  std::optional<TorchReference> torch;
};
struct Release {};
struct Verify {};
// An op this build does not know (the holder answers `failed`).
struct UnknownOp {};

using RequestBody = std::variant<Prepare, Release, Verify, UnknownOp>;

struct Request {
  RequestBody body;
  std::string op; // set by the reader and by make()
  std::optional<std::string> key;
  Json extra = Json::object();
  std::vector<std::string> keyOrder;

  template <class Body> static Request make(Body body, std::string key);
  template <class Body> const Body *as() const { return std::get_if<Body>(&body); }
};

// The holder is up: its GPU and pid.
struct Ready {
  std::optional<std::string> deviceUuid;
  std::optional<int64_t> pid;
};
struct Prepared {
  std::optional<std::string> manifest;
  std::optional<uint64_t> bytes;
  std::optional<double> seconds, generateSeconds, referenceSeconds;
  std::optional<int64_t> setsFromCache, sets;
  std::optional<bool> torchRan;
};
struct Released {};
struct Verified {
  std::optional<bool> intact;
  std::optional<std::string> detail; // "" or the first damaged buffer
};
struct Failed {
  std::optional<std::string> detail;
};
struct UnknownAnswer {};

using AnswerBody = std::variant<Ready, Prepared, Released, Verified, Failed, UnknownAnswer>;

struct Answer {
  AnswerBody body;
  std::string op;
  std::optional<std::string> key; // every answer but `ready`
  Json extra = Json::object();
  std::vector<std::string> keyOrder;

  template <class Body> static Answer make(Body body, std::optional<std::string> key);
  template <class Body> const Body *as() const { return std::get_if<Body>(&body); }
};

const char *requestOp(const RequestBody &body); // "" for UnknownOp
const char *answerOp(const AnswerBody &body);   // "" for UnknownAnswer

template <class Body> Request Request::make(Body body, std::string key) {
  Request r;
  r.body = std::move(body);
  r.op = requestOp(r.body);
  r.key = std::move(key);
  return r;
}

template <class Body> Answer Answer::make(Body body, std::optional<std::string> key) {
  Answer a;
  a.body = std::move(body);
  a.op = answerOp(a.body);
  a.key = std::move(key);
  return a;
}

Json requestToJson(const Request &request);
Request requestFromJson(const Json &line, const std::string &document);
Json answerToJson(const Answer &answer);
Answer answerFromJson(const Json &line, const std::string &document);

} // namespace holder

// ---- `cudaperf-eval --serve` (docs/eval-serve.md) ------------------------------------------------
// JSON Lines: one request per line in, one message per line out. A client's line is hostile input:
// parseRequest never throws, and a malformed line becomes an error message (its text is part of
// the protocol) for the client, naming the key; the server goes on.
namespace serve {

inline constexpr const char *kProtocolName = "cudaperf-eval-serve/1";
// Limits of one request line (bytes are bounded by the reader: kMaxLineBytes).
inline constexpr int kMaxDepth = 32;
inline constexpr size_t kMaxValues = 100000;
inline constexpr size_t kMaxLineBytes = size_t(64) << 20;

struct Request {
  enum class Op { Evaluate, Cancel, Stats, Shutdown, Ping };
  Op op = Op::Evaluate;
  Json id;           // echoed back: a string or an integer (null for stats/shutdown/ping)
  std::string idKey; // the id as the scheduler's key ("s:..." or "n:...")
  // evaluate
  std::string taskDir;
  std::string candidatePath; // exactly one of candidatePath and source
  std::string source;
  std::string name; // how a source-text candidate is named in its result (default: the id)
  std::optional<std::vector<std::string>> configs;
  std::optional<bool> counters;
  // shutdown
  bool drain = true;
};

struct Parse {
  std::optional<Request> request;
  std::string errorCode; // "bad_json" or "bad_request" when !request
  std::string errorMessage;
  Json id; // the line's id when it had a usable one (for the error message)
};

// What a client may ask of this server (docs/eval-serve.md, "Trust"): without a candidate root a
// "candidate" path is refused (a client sends the text as "source"); with one, the path must resolve
// (after symbolic links) to a file inside it. With a task root, "task_dir" likewise.
struct Policy {
  std::string candidateRoot;
  std::string taskRoot;
};

Parse parseRequest(const std::string &line, const Policy &policy = Policy());

// A client's line for `request`, in the order the clients have always written it: an evaluate
// request has no "op" (the server's default) and is {id, task_dir, candidate | source, name,
// configs, counters}; every other op is {op, id, drain}. A member is left out where the server's
// default says the same: a null id, an empty name, configs or counters not set, drain true. The
// candidate is "candidate" when candidatePath is set, else "source" (which may be empty text).
// parseRequest reads the line back into the same request (idKey included).
Json requestToJson(const Request &request);

// ---- the server's messages: each line out is `{"type": TYPE, ...}` ----

// The first line: the protocol, the GPU architecture, the devices (each the worker's `device`
// properties) and the server's limits.
struct Ready {
  std::optional<std::string> protocol, arch;
  std::optional<Json> devices; // an array
  std::optional<int64_t> queueLimit, buildThreads;
};
struct WorkerExits {
  std::optional<uint64_t> reaped;
  std::optional<double> meanSeconds, maxSeconds;
  Json extra = Json::object();
  std::vector<std::string> keyOrder;
};
// The answer to `stats`, and the last line (`bye`, the same figures).
struct Stats {
  std::optional<uint64_t> results;
  std::optional<Json> outcomes, meanStageSeconds; // objects: outcome -> count, stage -> mean seconds
  std::optional<uint64_t> submitted, finished, cancelled, waiting, building, running;
  std::optional<std::vector<uint64_t>> runsPerDevice;
  std::optional<WorkerExits> workerExit;
};
struct Pong {};
// One candidate's result document (`cudaperf-eval-result/1`) and its outcome beside it.
struct Result {
  Json outcome; // the result's outcome, null when it has none
  Json result;
};
struct Error {
  std::optional<std::string> code, message;
};
struct Cancelled {};
struct UnknownMessage {};

using MessageBody = std::variant<Ready, Stats, Pong, Result, Error, Cancelled, UnknownMessage>;

struct Message {
  MessageBody body;
  std::string type; // make() sets it; a Stats body is "stats" or "bye"
  std::optional<Json> id; // the request's id as the client sent it; null where a line had none usable
  Json extra = Json::object();
  std::vector<std::string> keyOrder;

  template <class Body> static Message make(Body body, std::optional<Json> id = std::nullopt);
  template <class Body> const Body *as() const { return std::get_if<Body>(&body); }
};

const char *messageType(const MessageBody &body); // "stats" for Stats, "" for UnknownMessage

template <class Body> Message Message::make(Body body, std::optional<Json> id) {
  Message m;
  m.body = std::move(body);
  m.type = messageType(m.body);
  m.id = std::move(id);
  return m;
}

// A result message for a result document: its outcome copied beside it.
Message resultMessage(const Json &id, Json result);

Json messageToJson(const Message &message);
Message messageFromJson(const Json &line, const std::string &document);

} // namespace serve

} // namespace cudaperf::schema
