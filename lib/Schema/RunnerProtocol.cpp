#include "cudaperf/Schema/RunnerProtocol.h"

#include "ObjectIO.h"

#include "cudaperf/Support/JsonReader.h"

#include <iterator>
#include <set>

namespace cudaperf::schema::runner {

using detail::KeyOrder;
using detail::ObjectWriter;
using support::JsonField;

namespace {

constexpr const char *kOps[] = {"load", "bind", "unbind", "check", "timed", "audit", "batch", "memory", "quit"};
static_assert(std::size(kOps) + 1 == std::variant_size_v<RequestBody>);
static_assert(std::variant_size_v<RequestBody> == std::variant_size_v<AnswerBody>);
static_assert(size_t(Op::Unknown) + 1 == std::variant_size_v<RequestBody>);

constexpr int64_t kMaxSlot = INT32_MAX;
constexpr int64_t kMaxCount = INT32_MAX;

template <class Variant, size_t I = 0> Variant bodyAt(size_t index) {
  if constexpr (I + 1 < std::variant_size_v<Variant>) {
    if (index == I)
      return Variant(std::in_place_index<I>);
    return bodyAt<Variant, I + 1>(index);
  } else {
    return Variant(std::in_place_index<I>);
  }
}

Op opNamed(const std::string &name) {
  for (size_t i = 0; i < std::size(kOps); ++i)
    if (name == kOps[i])
      return Op(i);
  return Op::Unknown;
}

// ---- one value, strictly ----

std::string text(const JsonField &f) { return f.string(); }
// A number, or "nan", "inf", "-inf" (support::writeJson's non-finite values).
double number(const JsonField &f) { return f.number(); }
bool boolean(const JsonField &f) { return f.boolean(); }
// A whole number within [min, max]; 4.0 is not one (it would write back as 4).
int64_t whole(const JsonField &f, int64_t min, int64_t max) {
  if (!f.json().is_number_integer())
    f.expected("a whole number");
  return f.integer(min, max);
}
int64_t whole(const JsonField &f) { return whole(f, INT64_MIN, INT64_MAX); }
uint64_t wholeUnsigned(const JsonField &f) {
  const Json &v = f.json();
  if (v.is_number_unsigned())
    return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0)
    return uint64_t(v.get<int64_t>());
  f.expected("a whole number of at least 0");
}
JsonField arrayField(const JsonField &f) {
  if (!f.json().is_array())
    f.expected("an array");
  return f;
}

// One object member by member: each known key taken (and type-checked by the caller), the rest
// kept in `extra`, the key order kept.
class Reader {
public:
  Reader(JsonField field, Json &extra, KeyOrder &order) : field_(std::move(field)), extra_(extra) {
    if (!field_.isObject())
      field_.expected("an object");
    for (const auto &kv : field_.json().items())
      order.push_back(kv.key());
  }
  const JsonField &field() const { return field_; }
  // Present (null included: a null is a value of the wrong type) or nullopt.
  std::optional<JsonField> take(const char *key) {
    taken_.insert(key);
    if (!support::member(field_.json(), key))
      return std::nullopt;
    return field_.require(key);
  }
  // Required: missing fails naming it.
  JsonField need(const char *key) {
    taken_.insert(key);
    return field_.require(key);
  }
  template <class Convert> auto optional(const char *key, Convert convert) {
    std::optional<decltype(convert(std::declval<const JsonField &>()))> out;
    if (std::optional<JsonField> f = take(key))
      out = convert(*f);
    return out;
  }
  std::optional<std::string> string(const char *key) { return optional(key, text); }
  std::optional<double> num(const char *key) { return optional(key, number); }
  std::optional<bool> flag(const char *key) { return optional(key, boolean); }
  std::optional<int64_t> integer(const char *key) { return optional(key, [](const JsonField &f) { return whole(f); }); }
  std::optional<int64_t> count(const char *key) {
    return optional(key, [](const JsonField &f) { return whole(f, 0, kMaxCount); });
  }
  std::optional<uint64_t> unsignedInteger(const char *key) { return optional(key, wholeUnsigned); }
  int64_t slot() { return whole(need("slot"), 0, kMaxSlot); }
  // Call last.
  void keepRest() {
    for (const auto &kv : field_.json().items())
      if (!taken_.count(kv.key()))
        extra_[kv.key()] = kv.value();
  }

private:
  JsonField field_;
  Json &extra_;
  std::set<std::string, std::less<>> taken_;
};

// ---- parts ----

std::array<uint32_t, 3> dims(const JsonField &f) {
  if (!f.json().is_array() || f.json().size() != 3)
    f.expected("an array of 3 whole numbers");
  std::array<uint32_t, 3> out{};
  std::vector<JsonField> e = f.elements();
  for (size_t i = 0; i < 3; ++i)
    out[i] = uint32_t(whole(e[i], 0, UINT32_MAX));
  return out;
}

Launch readLaunch(const JsonField &f) {
  Launch l;
  Reader in(f, l.extra, l.keyOrder);
  l.kernel = text(in.need("kernel"));
  l.grid = dims(in.need("grid"));
  l.block = dims(in.need("block"));
  l.dynamicSmemBytes = wholeUnsigned(in.need("dynamic_smem_bytes"));
  JsonField stream = in.need("stream");
  l.stream = text(stream);
  if (l.stream != "timed" && l.stream != "default" && l.stream != "other")
    stream.expected("\"timed\", \"default\" or \"other\"");
  in.keepRest();
  return l;
}

Json writeLaunch(const Launch &l) {
  ObjectWriter w;
  w.put("kernel", Json(l.kernel));
  w.put("grid", Json::array({l.grid[0], l.grid[1], l.grid[2]}));
  w.put("block", Json::array({l.block[0], l.block[1], l.block[2]}));
  w.put("dynamic_smem_bytes", Json(l.dynamicSmemBytes));
  w.put("stream", Json(l.stream));
  return w.finish(l.extra, l.keyOrder);
}

MemoryFigures readMemory(const JsonField &f) {
  MemoryFigures m;
  Reader in(f, m.extra, m.keyOrder);
  m.deviceBytes = in.unsignedInteger("device_bytes");
  m.hostBytes = in.unsignedInteger("host_bytes");
  if (std::optional<JsonField> kinds = in.take("bytes_by_kind")) {
    if (!kinds->isObject())
      kinds->expected("an object");
    m.bytesByKind.emplace();
    for (const auto &[name, bytes] : kinds->members())
      m.bytesByKind->emplace_back(name, wholeUnsigned(bytes));
  }
  m.liveAllocations = in.unsignedInteger("live_allocations");
  m.allocations = in.unsignedInteger("allocations");
  m.frees = in.unsignedInteger("frees");
  m.failedAllocations = in.unsignedInteger("failed_allocations");
  m.failedBytes = in.unsignedInteger("failed_bytes");
  m.invalidFrees = in.unsignedInteger("invalid_frees");
  m.untrackedFrees = in.unsignedInteger("untracked_frees");
  m.refusedFrees = in.unsignedInteger("refused_frees");
  m.poolReservedBytes = in.unsignedInteger("pool_reserved_bytes");
  m.pools = in.unsignedInteger("pools");
  in.keepRest();
  return m;
}

BindArg readBindArg(const JsonField &f) {
  BindArg a;
  Reader in(f, a.extra, a.keyOrder);
  if (support::member(f.json(), "handle")) {
    a.kind = BindArg::Kind::Buffer;
    a.hex = text(in.need("handle"));
    a.offset = wholeUnsigned(in.need("offset"));
    a.bytes = in.unsignedInteger("bytes");
  } else {
    a.kind = BindArg::Kind::Scalar;
    a.hex = text(in.need("scalar"));
  }
  in.keepRest();
  return a;
}

Json writeBindArg(const BindArg &a) {
  ObjectWriter w;
  if (a.kind == BindArg::Kind::Buffer) {
    w.put("handle", Json(a.hex));
    w.put("offset", Json(a.offset));
    w.put("bytes", a.bytes);
  } else {
    w.put("scalar", Json(a.hex));
  }
  return w.finish(a.extra, a.keyOrder);
}

SandboxReport readSandbox(const JsonField &f) {
  SandboxReport s;
  Reader in(f, s.extra, s.keyOrder);
  s.complete = in.flag("complete");
  if (std::optional<JsonField> missing = in.take("missing")) {
    std::vector<std::string> out;
    for (const JsonField &e : arrayField(*missing).elements())
      out.push_back(text(e));
    s.missing = std::move(out);
  }
  s.error = in.string("error");
  in.keepRest();
  return s;
}

// ---- requests ----

struct RequestReader {
  Reader &in;
  void operator()(Load &b) { b.path = text(in.need("path")); }
  void operator()(Bind &b) {
    b.slot = in.slot();
    for (const JsonField &e : arrayField(in.need("args")).elements())
      b.args.push_back(readBindArg(e));
  }
  void operator()(Unbind &b) { b.slot = in.slot(); }
  void operator()(Check &b) { b.slot = in.slot(); }
  void operator()(Timed &b) {
    b.slot = in.slot();
    b.settle = in.flag("settle").value_or(false);
  }
  void operator()(Audit &b) { b.slot = in.slot(); }
  void operator()(Batch &b) {
    for (const JsonField &e : arrayField(in.need("slots")).elements())
      b.slots.push_back(whole(e, 0, kMaxSlot));
  }
  void operator()(Memory &) {}
  void operator()(Quit &) {}
  void operator()(UnknownOp &) {}
};

struct RequestWriter {
  ObjectWriter &w;
  void operator()(const Load &b) { w.put("path", Json(b.path)); }
  void operator()(const Bind &b) {
    w.put("slot", Json(b.slot));
    Json args = Json::array();
    for (const BindArg &a : b.args)
      args.push_back(writeBindArg(a));
    w.put("args", args);
  }
  void operator()(const Unbind &b) { w.put("slot", Json(b.slot)); }
  void operator()(const Check &b) { w.put("slot", Json(b.slot)); }
  void operator()(const Timed &b) {
    w.put("slot", Json(b.slot));
    w.put("settle", Json(b.settle));
  }
  void operator()(const Audit &b) { w.put("slot", Json(b.slot)); }
  void operator()(const Batch &b) { w.put("slots", Json(b.slots)); }
  void operator()(const Memory &) {}
  void operator()(const Quit &) {}
  void operator()(const UnknownOp &) {}
};

// ---- answers ----

struct AnswerReader {
  Reader &in;
  std::optional<MemoryFigures> memory() {
    std::optional<JsonField> f = in.take("memory");
    return f ? std::optional<MemoryFigures>(readMemory(*f)) : std::nullopt;
  }
  void operator()(Load::Result &b) { b.loadError = in.string("load_error"); }
  void operator()(Bind::Result &) {}
  void operator()(Unbind::Result &) {}
  void operator()(Check::Result &b) {
    b.launchError = in.integer("launch_error");
    b.outOfMemory = in.unsignedInteger("out_of_memory");
    b.memory = memory();
  }
  void operator()(Timed::Result &b) {
    b.ms = in.num("ms");
    b.hostMs = in.num("host_ms");
  }
  void operator()(Audit::Result &b) {
    b.streamSpanMs = in.num("stream_span_ms");
    b.hostReturnMs = in.num("host_return_ms");
    b.drainMs = in.num("drain_ms");
    b.kernels = in.count("kernels");
    b.kernelsDefaultStream = in.count("kernels_default_stream");
    b.kernelsOtherStreams = in.count("kernels_other_streams");
    b.pendingStreams = in.count("pending_streams");
    b.hostCopies = in.count("host_copies");
    b.threadsLeft = in.count("threads_left");
    b.attempts = in.count("attempts");
    b.violation = in.string("violation");
    if (std::optional<JsonField> launches = in.take("launches")) {
      std::vector<Launch> out;
      for (const JsonField &e : arrayField(*launches).elements())
        out.push_back(readLaunch(e));
      b.launches = std::move(out);
    }
    b.launchesTruncated = in.flag("launches_truncated");
  }
  void operator()(Batch::Result &b) { b.launchError = in.integer("launch_error"); }
  void operator()(Memory::Result &b) { b.memory = memory(); }
  void operator()(Quit::Result &) {}
  void operator()(UnknownOp::Result &) {}
};

// In the runner's order: `launch_error` before `error`, the op's figures after it.
struct AnswerWriter {
  ObjectWriter &w;
  const Answer &a;
  void error() { w.put("error", a.error); }
  void operator()(const Load::Result &b) {
    error();
    w.put("load_error", b.loadError);
  }
  void operator()(const Bind::Result &) { error(); }
  void operator()(const Unbind::Result &) { error(); }
  void operator()(const Check::Result &b) {
    w.put("launch_error", b.launchError);
    error();
    w.put("out_of_memory", b.outOfMemory);
    if (b.memory)
      w.put("memory", memoryFiguresToJson(*b.memory));
  }
  void operator()(const Timed::Result &b) {
    error();
    w.put("ms", b.ms);
    w.put("host_ms", b.hostMs);
  }
  void operator()(const Audit::Result &b) {
    error();
    w.put("stream_span_ms", b.streamSpanMs);
    w.put("host_return_ms", b.hostReturnMs);
    w.put("drain_ms", b.drainMs);
    w.put("kernels", b.kernels);
    w.put("kernels_default_stream", b.kernelsDefaultStream);
    w.put("kernels_other_streams", b.kernelsOtherStreams);
    w.put("pending_streams", b.pendingStreams);
    w.put("host_copies", b.hostCopies);
    w.put("threads_left", b.threadsLeft);
    w.put("attempts", b.attempts);
    w.put("violation", b.violation);
    if (b.launches) {
      Json launches = Json::array();
      for (const Launch &l : *b.launches)
        launches.push_back(writeLaunch(l));
      w.put("launches", launches);
    }
    w.put("launches_truncated", b.launchesTruncated);
  }
  void operator()(const Batch::Result &b) {
    w.put("launch_error", b.launchError);
    error();
  }
  void operator()(const Memory::Result &b) {
    error();
    if (b.memory)
      w.put("memory", memoryFiguresToJson(*b.memory));
  }
  void operator()(const Quit::Result &) { error(); }
  void operator()(const UnknownOp::Result &) { error(); }
};

std::string documentFor(const std::string &document, Op op) {
  return op == Op::Unknown ? document : document + " (" + kOps[size_t(op)] + ")";
}

} // namespace

const char *opName(Op op) { return size_t(op) < std::size(kOps) ? kOps[size_t(op)] : ""; }

Json memoryFiguresToJson(const MemoryFigures &m) {
  ObjectWriter w;
  w.put("device_bytes", m.deviceBytes);
  w.put("host_bytes", m.hostBytes);
  if (m.bytesByKind) {
    Json kinds = Json::object();
    for (const auto &[name, bytes] : *m.bytesByKind)
      kinds[name] = bytes;
    w.put("bytes_by_kind", kinds);
  }
  w.put("live_allocations", m.liveAllocations);
  w.put("allocations", m.allocations);
  w.put("frees", m.frees);
  w.put("failed_allocations", m.failedAllocations);
  w.put("failed_bytes", m.failedBytes);
  w.put("invalid_frees", m.invalidFrees);
  w.put("untracked_frees", m.untrackedFrees);
  w.put("refused_frees", m.refusedFrees);
  w.put("pool_reserved_bytes", m.poolReservedBytes);
  w.put("pools", m.pools);
  return w.finish(m.extra, m.keyOrder);
}

MemoryFigures memoryFiguresFromJson(const Json &object, const std::string &document) {
  return readMemory(JsonField(object, document));
}

Json sandboxReportToJson(const SandboxReport &s) {
  ObjectWriter w;
  w.put("complete", s.complete);
  w.put("missing", s.missing);
  w.put("error", s.error);
  return w.finish(s.extra, s.keyOrder);
}

SandboxReport sandboxReportFromJson(const Json &object, const std::string &document) {
  return readSandbox(JsonField(object, document));
}

Json requestToJson(const Request &request) {
  ObjectWriter w;
  w.put("op", Json(request.op));
  std::visit(RequestWriter{w}, request.body);
  return w.finish(request.extra, request.keyOrder);
}

Request requestFromJson(const Json &message, const std::string &document) {
  JsonField base(message, document);
  if (!message.is_object())
    base.expected("an object");
  Request r;
  r.op = base.require("op").string();
  Op op = opNamed(r.op);
  r.body = bodyAt<RequestBody>(size_t(op));
  Reader in(JsonField(message, documentFor(document, op)), r.extra, r.keyOrder);
  in.take("op");
  std::visit(RequestReader{in}, r.body);
  in.keepRest();
  return r;
}

Json answerToJson(const Answer &answer) {
  ObjectWriter w;
  std::visit(AnswerWriter{w, answer}, answer.body);
  w.put("detail", answer.detail);
  return w.finish(answer.extra, answer.keyOrder);
}

Answer answerFromJson(const Json &message, Op op, const std::string &document) {
  Answer a;
  a.body = bodyAt<AnswerBody>(size_t(op));
  Reader in(JsonField(message, documentFor(document, op)), a.extra, a.keyOrder);
  a.error = in.integer("error");
  a.detail = in.string("detail");
  std::visit(AnswerReader{in}, a.body);
  in.keepRest();
  return a;
}

Json readyToJson(const Ready &ready) {
  ObjectWriter w;
  w.put("event", Json("ready"));
  if (ready.sandbox)
    w.put("sandbox", sandboxReportToJson(*ready.sandbox));
  w.put("context_seconds", ready.contextSeconds);
  w.put("error", ready.error);
  w.put("retryable", ready.retryable);
  return w.finish(ready.extra, ready.keyOrder);
}

Ready readyFromJson(const Json &message, const std::string &document) {
  Ready r;
  Reader in(JsonField(message, document), r.extra, r.keyOrder);
  JsonField event = in.need("event");
  if (text(event) != "ready")
    event.expected("\"ready\"");
  if (std::optional<JsonField> sandbox = in.take("sandbox"))
    r.sandbox = readSandbox(*sandbox);
  r.contextSeconds = in.num("context_seconds");
  r.error = in.string("error");
  r.retryable = in.flag("retryable");
  in.keepRest();
  return r;
}

} // namespace cudaperf::schema::runner
