#include "cudaperf/Schema/Protocol.h"

#include "ObjectIO.h"

#include "cudaperf/Support/JsonReader.h"
#include "cudaperf/Support/SourceGate.h"

#include <iterator>
#include <set>

namespace cudaperf::schema {

using support::JsonField;

namespace {

using detail::ObjectWriter;

// The body named `op` among `ops` (a variant whose alternatives follow `ops`, then one for an
// unknown name).
template <class Variant, size_t N, size_t I = 0> Variant bodyForOp(std::string_view op, const char *const (&ops)[N]) {
  if constexpr (I < N) {
    if (op == ops[I])
      return Variant(std::in_place_index<I>);
    return bodyForOp<Variant, N, I + 1>(op, ops);
  } else {
    return Variant(std::in_place_index<N>);
  }
}

// ---- The worker's event file ------------------------------------------------------------------

// The wire names, in the variant's order (events::Unknown has none).
constexpr const char *kEventNames[] = {"start",        "device",  "device_data", "reference", "phase",   "check",
                                       "audit",        "timing",  "memory",      "memory_wait", "retry", "shared_data",
                                       "sandbox",      "verdict", "counters",    "error",     "done"};
static_assert(std::size(kEventNames) + 1 == std::variant_size_v<WorkerEventBody>);

template <size_t I = 0> WorkerEventBody bodyNamed(std::string_view name) {
  if constexpr (I + 1 < std::variant_size_v<WorkerEventBody>) {
    if (name == kEventNames[I])
      return WorkerEventBody(std::in_place_index<I>);
    return bodyNamed<I + 1>(name);
  } else {
    return events::Unknown{};
  }
}

// Reads one line member by member. Strict: a known field of another type fails naming it.
// Lenient (the evaluator's): such a field reads as absent and stays in `extra` verbatim.
class LineReader {
public:
  LineReader(JsonField base, bool strict) : base_(std::move(base)), line_(base_.json()), strict_(strict) {}

  std::optional<std::string> string(const char *key) {
    return take<std::string>(key, "a string", [](const Json &v) { return v.is_string(); });
  }
  std::optional<double> number(const char *key) {
    return take<double>(key, "a number", [](const Json &v) { return v.is_number(); });
  }
  std::optional<int64_t> integer(const char *key) {
    // An unsigned value past INT64_MAX is not one (it would write back as another number).
    return take<int64_t>(key, "a whole number", [](const Json &v) {
      return v.is_number_integer() && (!v.is_number_unsigned() || v.get<uint64_t>() <= uint64_t(INT64_MAX));
    });
  }
  std::optional<uint64_t> unsignedInteger(const char *key) {
    return take<uint64_t>(key, "a whole number of at least 0", [](const Json &v) { return v.is_number_unsigned(); });
  }
  std::optional<bool> boolean(const char *key) {
    return take<bool>(key, "true or false", [](const Json &v) { return v.is_boolean(); });
  }
  std::optional<Json> object(const char *key) {
    return take<Json>(key, "an object", [](const Json &v) { return v.is_object(); });
  }
  std::optional<Json> array(const char *key) {
    return take<Json>(key, "an array", [](const Json &v) { return v.is_array(); });
  }
  std::optional<Json> any(const char *key) {
    return take<Json>(key, "", [](const Json &) { return true; });
  }
  std::optional<std::vector<std::string>> strings(const char *key) {
    std::optional<Json> v = take<Json>(key, "an array of strings", [](const Json &v) { return v.is_array(); });
    if (!v)
      return std::nullopt;
    std::vector<std::string> out;
    for (const JsonField &element : base_.require(key).elements())
      out.push_back(element.string());
    return out;
  }
  // An object member read on its own (`torch`); its errors name the path inside it.
  std::optional<JsonField> object(const char *key, bool) {
    if (!take<Json>(key, "an object", [](const Json &v) { return v.is_object(); }))
      return std::nullopt;
    return base_.require(key);
  }
  // A whole number; in the lenient reader any number, converted as the evaluator has always read a
  // phase's input set (a fraction truncated). Such a line does not write back exactly.
  std::optional<int64_t> looseInteger(const char *key) {
    if (!strict_)
      if (const Json *v = support::member(line_, key); v && v->is_number()) {
        taken_.insert(key);
        if (!v->is_number_float())
          return v->get<int64_t>();
        // Out of range (or NaN): what x86's conversion gives, without the undefined behaviour of a
        // cast (a forged 1e300 must not be a sanitizer's finding in the evaluator).
        double d = v->get<double>();
        return d >= -9223372036854775808.0 && d < 9223372036854775808.0 ? int64_t(d) : INT64_MIN;
      }
    return integer(key);
  }

  // Whatever was not taken, in the line's order.
  void keepRest(Json &extra) const {
    for (const auto &kv : line_.items())
      if (!taken_.count(kv.key()))
        extra[kv.key()] = kv.value();
  }

private:
  template <class T, class IsType> std::optional<T> take(const char *key, const char *type, IsType isType) {
    const Json *v = support::member(line_, key);
    if (!v)
      return std::nullopt;
    if (!isType(*v)) {
      if (strict_)
        base_.require(key).expected(type);
      return std::nullopt;
    }
    taken_.insert(key);
    return v->get<T>();
  }

  JsonField base_;
  const Json &line_;
  bool strict_;
  std::set<std::string, std::less<>> taken_{"event"};
};

struct BodyReader {
  LineReader &r;
  WorkerEvent &e;

  void operator()(events::Start &b) {
    b.pool = r.boolean("pool");
    b.isolation = r.string("isolation");
    b.contextSeconds = r.number("context_seconds");
    b.contextWaitSeconds = r.number("context_wait_seconds");
  }
  void operator()(events::Device &b) {
    b.index = r.integer("index");
    b.pid = r.integer("pid");
  }
  void operator()(events::DeviceData &b) {
    b.mode = r.string("mode");
    b.copiedSets = r.integer("copied_sets");
    b.reason = r.string("reason");
  }
  void operator()(events::Reference &b) {
    b.cached = r.boolean("cached");
    b.set = r.integer("set");
    b.seed = r.unsignedInteger("seed");
    b.ms = r.number("ms");
  }
  void operator()(events::Phase &b) {
    b.step = r.string("step");
    b.set = r.looseInteger("set");
  }
  void operator()(events::Check &b) {
    b.set = r.integer("set");
    b.seed = r.unsignedInteger("seed");
    b.step = r.string("step");
    b.pass = r.boolean("pass");
  }
  void operator()(events::Audit &) {}
  void operator()(events::Timing &b) {
    b.stable = r.boolean("stable");
    b.integrity = r.object("integrity");
    b.cached = r.boolean("cached");
  }
  void operator()(events::Memory &b) {
    b.heldBytes = r.unsignedInteger("held_bytes");
    b.peakHeldBytes = r.unsignedInteger("peak_held_bytes");
  }
  void operator()(events::MemoryWait &b) { b.seconds = r.number("seconds"); }
  void operator()(events::Retry &b) {
    b.set = r.integer("set");
    b.reason = r.string("reason");
    b.pauseSeconds = r.number("pause_seconds");
  }
  void operator()(events::SharedData &b) {
    b.after = r.string("after");
    b.intact = r.boolean("intact");
    b.detail = r.string("detail");
  }
  void operator()(events::Sandbox &b) {
    b.isolation = r.string("isolation");
    b.runner = r.object("runner");
    b.pid = r.integer("pid");
  }
  void operator()(events::Verdict &b) {
    b.outcome = r.string("outcome");
    b.detail = r.string("detail");
  }
  void operator()(events::Counters &b) { b.available = r.boolean("available"); }
  void operator()(events::Error &b) {
    b.detail = r.string("detail");
    b.retryable = r.boolean("retryable");
  }
  void operator()(events::Done &) {}
  void operator()(events::Unknown &) {}
};

WorkerEvent readEvent(const Json &line, const std::string &document, bool strict) {
  WorkerEvent e;
  if (!line.is_object())
    JsonField(line, document).expected("an object");
  e.name = JsonField(line, document).require("event").string();
  e.body = bodyNamed(e.name);
  for (const auto &kv : line.items())
    e.keyOrder.push_back(kv.key());
  LineReader r(JsonField(line, document + (e.is<events::Unknown>() ? "" : " (" + e.name + ")")), strict);
  e.t = r.number("t");
  e.impl = r.string("impl");
  e.config = r.string("config");
  std::visit(BodyReader{r, e}, e.body);
  r.keepRest(e.extra);
  return e;
}

void putMembers(ObjectWriter &w, const Json &object) {
  for (const auto &kv : object.items())
    w.put(kv.key().c_str(), kv.value());
}

struct BodyWriter {
  ObjectWriter &w;
  const WorkerEvent &e;

  void name() { w.put("event", Json(e.name)); }
  void impl() { w.put("impl", e.impl); }
  void config() { w.put("config", e.config); }

  void operator()(const events::Start &b) {
    name();
    w.put("pool", b.pool);
    w.put("isolation", b.isolation);
    w.put("context_seconds", b.contextSeconds);
    w.put("context_wait_seconds", b.contextWaitSeconds);
  }
  void operator()(const events::Device &b) {
    name();
    putMembers(w, b.properties);
    w.put("index", b.index);
    w.put("pid", b.pid);
  }
  void operator()(const events::DeviceData &b) {
    name();
    w.put("mode", b.mode);
    w.put("copied_sets", b.copiedSets);
    w.put("reason", b.reason);
  }
  void operator()(const events::Reference &b) {
    name();
    w.put("cached", b.cached);
    config();
    w.put("set", b.set);
    w.put("seed", b.seed);
    w.put("ms", b.ms);
  }
  void operator()(const events::Phase &b) {
    name();
    impl();
    config();
    w.put("step", b.step);
    w.put("set", b.set);
  }
  void operator()(const events::Check &b) {
    name();
    impl();
    config();
    w.put("set", b.set);
    w.put("seed", b.seed);
    w.put("step", b.step);
    w.put("pass", b.pass);
    putMembers(w, b.mismatch);
  }
  void operator()(const events::Audit &b) {
    name();
    impl();
    config();
    putMembers(w, b.figures);
  }
  void operator()(const events::Timing &b) {
    putMembers(w, b.figures);
    name();
    impl();
    config();
    w.put("stable", b.stable);
    w.put("integrity", b.integrity);
    w.put("cached", b.cached);
  }
  void operator()(const events::Memory &b) {
    putMembers(w, b.summary);
    name();
    impl();
    w.put("held_bytes", b.heldBytes);
    w.put("peak_held_bytes", b.peakHeldBytes);
  }
  void operator()(const events::MemoryWait &b) {
    name();
    impl();
    config();
    w.put("seconds", b.seconds);
  }
  void operator()(const events::Retry &b) {
    name();
    impl();
    config();
    w.put("set", b.set);
    w.put("reason", b.reason);
    w.put("pause_seconds", b.pauseSeconds);
  }
  void operator()(const events::SharedData &b) {
    name();
    w.put("after", b.after);
    w.put("intact", b.intact);
    w.put("detail", b.detail);
  }
  void operator()(const events::Sandbox &b) {
    name();
    w.put("isolation", b.isolation);
    w.put("runner", b.runner);
    w.put("pid", b.pid);
  }
  void operator()(const events::Verdict &b) {
    name();
    impl();
    w.put("outcome", b.outcome);
    w.put("detail", b.detail);
    config();
  }
  void operator()(const events::Counters &b) {
    name();
    impl();
    config();
    putMembers(w, b.document);
    w.put("available", b.available);
  }
  void operator()(const events::Error &b) {
    name();
    w.put("detail", b.detail);
    w.put("retryable", b.retryable);
  }
  void operator()(const events::Done &) { name(); }
  void operator()(const events::Unknown &) {
    name();
    impl();
    config();
  }
};

} // namespace

const char *workerEventName(const WorkerEventBody &body) {
  return body.index() < std::size(kEventNames) ? kEventNames[body.index()] : "";
}

Json workerEventToJson(const WorkerEvent &event) {
  ObjectWriter w;
  std::visit(BodyWriter{w, event}, event.body);
  // Every kind carries the routing fields where it has them; a kind that does not name them (a
  // forged "impl" on a device line, read back) still writes them, in the order they were read.
  w.put("impl", event.impl);
  w.put("config", event.config);
  w.put("t", event.t);
  return w.finish(event.extra, event.keyOrder);
}

WorkerEvent workerEventFromJson(const Json &line, const std::string &document) {
  return readEvent(line, document, true);
}

std::vector<WorkerEvent> readWorkerEvents(std::string_view text) {
  std::vector<WorkerEvent> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    start = end == std::string_view::npos ? text.size() : end + 1;
    if (line.empty())
      continue;
    try {
      Json v = support::parseJson(line, "worker event");
      const Json *name = support::member(v, "event");
      if (v.is_object() && name && name->is_string())
        out.push_back(readEvent(v, "worker event", false));
    } catch (const support::SupportError &) {
      // A torn last line (process killed mid-write) is dropped.
    }
  }
  return out;
}

Json workerEventPayload(const WorkerEvent &event) {
  Json line = workerEventToJson(event);
  Json out = Json::object();
  for (const auto &kv : line.items())
    if (kv.key() != "event" && kv.key() != "t" && kv.key() != "impl" && kv.key() != "config")
      out[kv.key()] = kv.value();
  return out;
}

// ---- A pool worker's job ---------------------------------------------------------------------

Json poolJobToJson(const PoolJob &job) {
  ObjectWriter w;
  w.put("argv", Json(job.argv));
  w.put("handed_at", job.handedAt);
  return w.finish(job.extra, job.keyOrder);
}

PoolJob poolJobFromJson(const Json &line, const std::string &document) {
  JsonField base(line, document);
  if (!line.is_object())
    base.expected("an object");
  PoolJob job;
  for (const auto &kv : line.items())
    job.keyOrder.push_back(kv.key());
  LineReader r(base, true);
  std::optional<std::vector<std::string>> argv = r.strings("argv");
  if (!argv)
    base.require("argv"); // fails: missing
  job.argv = std::move(*argv);
  job.handedAt = r.number("handed_at");
  r.keepRest(job.extra);
  return job;
}

// ---- The data holder --------------------------------------------------------------------------

namespace holder {

namespace {

constexpr const char *kRequestOps[] = {"prepare", "release", "verify"};
constexpr const char *kAnswerOps[] = {"ready", "prepared", "released", "verified", "failed"};
static_assert(std::size(kRequestOps) + 1 == std::variant_size_v<RequestBody>);
static_assert(std::size(kAnswerOps) + 1 == std::variant_size_v<AnswerBody>);

TorchReference readTorch(const JsonField &f) {
  TorchReference t;
  for (const auto &kv : f.json().items())
    t.keyOrder.push_back(kv.key());
  LineReader r(f, true);
  t.program = r.string("program");
  t.args = r.strings("args");
  t.timingPath = r.string("timing_path");
  t.timeoutSeconds = r.number("timeout_seconds");
  t.logPath = r.string("log_path");
  r.keepRest(t.extra);
  return t;
}

Json writeTorch(const TorchReference &t) {
  ObjectWriter w;
  w.put("program", t.program);
  w.put("args", t.args);
  w.put("timing_path", t.timingPath);
  w.put("timeout_seconds", t.timeoutSeconds);
  w.put("log_path", t.logPath);
  return w.finish(t.extra, t.keyOrder);
}

// The op and key of a line; the rest is the body's.
template <class Message, class Variant, size_t N>
Message readHeader(const Json &line, const char *const (&ops)[N], const JsonField &base) {
  Message m;
  if (!line.is_object())
    base.expected("an object");
  m.op = base.require("op").string();
  m.body = bodyForOp<Variant>(m.op, ops);
  for (const auto &kv : line.items())
    m.keyOrder.push_back(kv.key());
  return m;
}

} // namespace

const char *requestOp(const RequestBody &body) {
  return body.index() < std::size(kRequestOps) ? kRequestOps[body.index()] : "";
}
const char *answerOp(const AnswerBody &body) {
  return body.index() < std::size(kAnswerOps) ? kAnswerOps[body.index()] : "";
}

Json requestToJson(const Request &request) {
  ObjectWriter w;
  w.put("op", Json(request.op));
  w.put("key", request.key);
  if (const Prepare *p = request.as<Prepare>()) {
    w.put("task_dir", Json(p->taskDir));
    w.put("configs", p->configs);
    w.put("seed", Json(p->seed));
    w.put("sets", Json(p->sets));
    w.put("manifest", p->manifest);
    w.put("memory_wait_seconds", p->memoryWaitSeconds);
    w.put("set_cache_limit_bytes", p->setCacheLimitBytes);
    w.put("set_cache", p->setCache);
    w.put("reference_so", p->referenceSo);
    w.put("reference_id", p->referenceId);
    if (p->torch)
      w.put("torch", writeTorch(*p->torch));
  }
  return w.finish(request.extra, request.keyOrder);
}

Request requestFromJson(const Json &line, const std::string &document) {
  JsonField base(line, document);
  Request m = readHeader<Request, RequestBody>(line, kRequestOps, base);
  LineReader r(JsonField(line, m.as<UnknownOp>() ? document : document + " (" + m.op + ")"), true);
  r.string("op");
  m.key = r.string("key");
  if (std::holds_alternative<Prepare>(m.body)) {
    Prepare &p = std::get<Prepare>(m.body);
    JsonField f(line, document + " (prepare)");
    auto required = [&](auto value, const char *key) {
      if (!value)
        f.require(key); // fails: missing
      return *value;
    };
    p.taskDir = required(r.string("task_dir"), "task_dir");
    p.configs = r.strings("configs");
    p.seed = required(r.unsignedInteger("seed"), "seed");
    p.sets = required(r.integer("sets"), "sets");
    p.manifest = r.string("manifest");
    p.memoryWaitSeconds = r.number("memory_wait_seconds");
    p.setCacheLimitBytes = r.unsignedInteger("set_cache_limit_bytes");
    p.setCache = r.string("set_cache");
    p.referenceSo = r.string("reference_so");
    p.referenceId = r.string("reference_id");
    if (std::optional<JsonField> torch = r.object("torch", true))
      p.torch = readTorch(*torch);
  }
  r.keepRest(m.extra);
  return m;
}

Json answerToJson(const Answer &answer) {
  ObjectWriter w;
  w.put("op", Json(answer.op));
  w.put("key", answer.key);
  if (const Ready *b = answer.as<Ready>()) {
    w.put("device_uuid", b->deviceUuid);
    w.put("pid", b->pid);
  } else if (const Prepared *b = answer.as<Prepared>()) {
    w.put("manifest", b->manifest);
    w.put("bytes", b->bytes);
    w.put("seconds", b->seconds);
    w.put("generate_seconds", b->generateSeconds);
    w.put("reference_seconds", b->referenceSeconds);
    w.put("sets_from_cache", b->setsFromCache);
    w.put("sets", b->sets);
    w.put("torch_ran", b->torchRan);
  } else if (const Verified *b = answer.as<Verified>()) {
    w.put("intact", b->intact);
    w.put("detail", b->detail);
  } else if (const Failed *b = answer.as<Failed>()) {
    w.put("detail", b->detail);
  }
  return w.finish(answer.extra, answer.keyOrder);
}

Answer answerFromJson(const Json &line, const std::string &document) {
  JsonField base(line, document);
  Answer m = readHeader<Answer, AnswerBody>(line, kAnswerOps, base);
  LineReader r(JsonField(line, m.as<UnknownAnswer>() ? document : document + " (" + m.op + ")"), true);
  r.string("op");
  m.key = r.string("key");
  if (Ready *b = std::get_if<Ready>(&m.body)) {
    b->deviceUuid = r.string("device_uuid");
    b->pid = r.integer("pid");
  } else if (Prepared *b = std::get_if<Prepared>(&m.body)) {
    b->manifest = r.string("manifest");
    b->bytes = r.unsignedInteger("bytes");
    b->seconds = r.number("seconds");
    b->generateSeconds = r.number("generate_seconds");
    b->referenceSeconds = r.number("reference_seconds");
    b->setsFromCache = r.integer("sets_from_cache");
    b->sets = r.integer("sets");
    b->torchRan = r.boolean("torch_ran");
  } else if (Verified *b = std::get_if<Verified>(&m.body)) {
    b->intact = r.boolean("intact");
    b->detail = r.string("detail");
  } else if (Failed *b = std::get_if<Failed>(&m.body)) {
    b->detail = r.string("detail");
  }
  r.keepRest(m.extra);
  return m;
}

} // namespace holder

// ---- `cudaperf-eval --serve` ------------------------------------------------------------------

namespace serve {

namespace {

Parse failure(const std::string &code, const std::string &message, const Json &id = nullptr) {
  Parse p;
  p.errorCode = code;
  p.errorMessage = message;
  p.id = id;
  return p;
}

// "a,b" -> {"a", "b"}, empty names dropped (as runtime::parseConfigList reads --configs).
std::vector<std::string> splitNames(const std::string &text) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!name.empty())
      names.push_back(name);
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return names;
}

// A string or a whole number; "" when the id is unusable.
std::string idKey(const Json &id) {
  if (id.is_string() && !id.get<std::string>().empty())
    return "s:" + id.get<std::string>();
  if (id.is_number_integer() || id.is_number_unsigned())
    return "n:" + id.dump();
  return "";
}

} // namespace

Parse parseRequest(const std::string &line, const Policy &policy) {
  Json doc;
  try {
    // Depth- and size-limited (support::parseJson): one line of 200 KB of brackets must be an error
    // message, not a stack overflow that loses every candidate in flight.
    support::JsonLimits limits;
    limits.maxDepth = kMaxDepth;
    limits.maxValues = kMaxValues;
    doc = support::parseJson(line, "request", limits);
  } catch (const support::SupportError &e) {
    return failure("bad_json", std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object())
    return failure("bad_request", "a request is a JSON object");
  Json id = doc.contains("id") ? doc["id"] : Json();
  std::string key = idKey(id);
  Json echo = key.empty() ? Json() : id;

  Request r;
  std::string op = "evaluate";
  if (doc.contains("op")) {
    if (!doc["op"].is_string())
      return failure("bad_request", "\"op\" must be a string", echo);
    op = doc["op"].get<std::string>();
  }
  std::set<std::string> allowed;
  if (op == "evaluate") {
    r.op = Request::Op::Evaluate;
    allowed = {"op", "id", "task_dir", "candidate", "source", "name", "configs", "counters"};
  } else if (op == "cancel") {
    r.op = Request::Op::Cancel;
    allowed = {"op", "id"};
  } else if (op == "stats" || op == "ping") {
    r.op = op == "stats" ? Request::Op::Stats : Request::Op::Ping;
    allowed = {"op", "id"};
  } else if (op == "shutdown") {
    r.op = Request::Op::Shutdown;
    allowed = {"op", "id", "drain"};
  } else {
    return failure("bad_request", "unknown op \"" + op + "\" (evaluate, cancel, stats, ping, shutdown)", echo);
  }
  for (const auto &kv : doc.items())
    if (!allowed.count(kv.key()))
      return failure("bad_request", "unknown key \"" + kv.key() + "\" in a " + op + " request", echo);
  if (doc.contains("id") && key.empty())
    return failure("bad_request", "\"id\" must be a non-empty string or an integer");
  r.id = echo;
  r.idKey = key;

  auto text = [&](const char *name, std::string &out) -> std::string {
    if (!doc.contains(name))
      return "";
    if (!doc[name].is_string())
      return std::string("\"") + name + "\" must be a string";
    out = doc[name].get<std::string>();
    return "";
  };
  switch (r.op) {
  case Request::Op::Evaluate: {
    if (key.empty())
      return failure("bad_request", "an evaluate request needs an \"id\" (a string or an integer)");
    for (const char *name : {"task_dir", "candidate", "source", "name"}) {
      std::string *dst = std::string(name) == "task_dir"    ? &r.taskDir
                         : std::string(name) == "candidate" ? &r.candidatePath
                         : std::string(name) == "source"    ? &r.source
                                                            : &r.name;
      if (std::string err = text(name, *dst); !err.empty())
        return failure("bad_request", err, echo);
    }
    if (r.taskDir.empty())
      return failure("bad_request", "\"task_dir\" is required", echo);
    if (r.candidatePath.empty() == !doc.contains("source"))
      return failure("bad_request", "give exactly one of \"candidate\" (a path) and \"source\" (the text)", echo);
    if (!r.candidatePath.empty()) {
      // A path names a file of this server: only under the root the operator named, after links.
      if (policy.candidateRoot.empty())
        return failure("bad_request",
                       "\"candidate\" paths are refused by this server (send the text as \"source\", or start "
                       "it with --candidate-root DIR)",
                       echo);
      std::string resolved;
      if (!support::resolveInside(policy.candidateRoot, r.candidatePath, resolved))
        return failure("bad_request", "\"candidate\" is not a file under the candidate root", echo);
      r.candidatePath = resolved;
    }
    if (!policy.taskRoot.empty()) {
      std::string resolved;
      if (!support::resolveInside(policy.taskRoot, r.taskDir, resolved))
        return failure("bad_request", "\"task_dir\" is not a directory under the task root", echo);
      r.taskDir = resolved;
    }
    if (doc.contains("configs")) {
      const Json &c = doc["configs"];
      std::vector<std::string> names;
      if (c.is_string()) {
        names = splitNames(c.get<std::string>());
      } else if (c.is_array()) {
        for (const Json &n : c) {
          if (!n.is_string())
            return failure("bad_request", "\"configs\" must be a list of names or \"a,b\"", echo);
          names.push_back(n.get<std::string>());
        }
      } else {
        return failure("bad_request", "\"configs\" must be a list of names or \"a,b\"", echo);
      }
      r.configs = names;
    }
    if (doc.contains("counters")) {
      if (!doc["counters"].is_boolean())
        return failure("bad_request", "\"counters\" must be true or false", echo);
      r.counters = doc["counters"].get<bool>();
    }
    break;
  }
  case Request::Op::Cancel:
    if (key.empty())
      return failure("bad_request", "a cancel request names the request to cancel in \"id\"");
    break;
  case Request::Op::Shutdown:
    if (doc.contains("drain")) {
      if (!doc["drain"].is_boolean())
        return failure("bad_request", "\"drain\" must be true or false", echo);
      r.drain = doc["drain"].get<bool>();
    }
    break;
  default:
    break;
  }
  Parse p;
  p.request = std::move(r);
  p.id = echo;
  return p;
}

Json requestToJson(const Request &r) {
  Json out = Json::object();
  switch (r.op) {
  case Request::Op::Evaluate:
    break;
  case Request::Op::Cancel:
    out["op"] = "cancel";
    break;
  case Request::Op::Stats:
    out["op"] = "stats";
    break;
  case Request::Op::Shutdown:
    out["op"] = "shutdown";
    break;
  case Request::Op::Ping:
    out["op"] = "ping";
    break;
  }
  if (!r.id.is_null())
    out["id"] = r.id;
  if (r.op == Request::Op::Evaluate) {
    out["task_dir"] = r.taskDir;
    if (!r.candidatePath.empty())
      out["candidate"] = r.candidatePath;
    else
      out["source"] = r.source;
    if (!r.name.empty())
      out["name"] = r.name;
    if (r.configs)
      out["configs"] = *r.configs;
    if (r.counters)
      out["counters"] = *r.counters;
  }
  if (r.op == Request::Op::Shutdown && !r.drain)
    out["drain"] = false;
  return out;
}

namespace {

constexpr const char *kMessageTypes[] = {"ready", "stats", "pong", "result", "error", "cancelled"};
static_assert(std::size(kMessageTypes) + 1 == std::variant_size_v<MessageBody>);

WorkerExits readWorkerExits(const JsonField &f) {
  WorkerExits w;
  for (const auto &kv : f.json().items())
    w.keyOrder.push_back(kv.key());
  LineReader r(f, true);
  w.reaped = r.unsignedInteger("reaped");
  w.meanSeconds = r.number("mean_seconds");
  w.maxSeconds = r.number("max_seconds");
  r.keepRest(w.extra);
  return w;
}

Json writeWorkerExits(const WorkerExits &w) {
  ObjectWriter o;
  o.put("reaped", w.reaped);
  o.put("mean_seconds", w.meanSeconds);
  o.put("max_seconds", w.maxSeconds);
  return o.finish(w.extra, w.keyOrder);
}

} // namespace

const char *messageType(const MessageBody &body) {
  return body.index() < std::size(kMessageTypes) ? kMessageTypes[body.index()] : "";
}

Message resultMessage(const Json &id, Json result) {
  Result r;
  const Json *outcome = support::member(result, "outcome");
  r.outcome = outcome ? *outcome : Json();
  r.result = std::move(result);
  return Message::make(std::move(r), id);
}

Json messageToJson(const Message &m) {
  ObjectWriter w;
  w.put("type", Json(m.type));
  if (const Ready *b = m.as<Ready>()) {
    w.put("protocol", b->protocol);
    w.put("arch", b->arch);
    w.put("devices", b->devices);
    w.put("queue_limit", b->queueLimit);
    w.put("build_threads", b->buildThreads);
  }
  // A stats answer has its id last (after the figures); every other message right after the type.
  if (!m.as<Stats>())
    w.put("id", m.id);
  if (const Stats *b = m.as<Stats>()) {
    w.put("results", b->results);
    w.put("outcomes", b->outcomes);
    w.put("mean_stage_seconds", b->meanStageSeconds);
    w.put("submitted", b->submitted);
    w.put("finished", b->finished);
    w.put("cancelled", b->cancelled);
    w.put("waiting", b->waiting);
    w.put("building", b->building);
    w.put("running", b->running);
    w.put("runs_per_device", b->runsPerDevice);
    if (b->workerExit)
      w.put("worker_exit", writeWorkerExits(*b->workerExit));
    w.put("id", m.id);
  } else if (const Result *b = m.as<Result>()) {
    w.put("outcome", b->outcome);
    w.put("result", b->result);
  } else if (const Error *b = m.as<Error>()) {
    w.put("code", b->code);
    w.put("message", b->message);
  }
  return w.finish(m.extra, m.keyOrder);
}

Message messageFromJson(const Json &line, const std::string &document) {
  JsonField base(line, document);
  if (!line.is_object())
    base.expected("an object");
  Message m;
  m.type = base.require("type").string();
  m.body = m.type == "bye" ? MessageBody(std::in_place_type<Stats>)
                           : bodyForOp<MessageBody>(m.type, kMessageTypes);
  for (const auto &kv : line.items())
    m.keyOrder.push_back(kv.key());
  LineReader r(JsonField(line, m.as<UnknownMessage>() ? document : document + " (" + m.type + ")"), true);
  r.string("type");
  m.id = r.any("id");
  if (Ready *b = std::get_if<Ready>(&m.body)) {
    b->protocol = r.string("protocol");
    b->arch = r.string("arch");
    b->devices = r.array("devices");
    b->queueLimit = r.integer("queue_limit");
    b->buildThreads = r.integer("build_threads");
  } else if (Stats *b = std::get_if<Stats>(&m.body)) {
    b->results = r.unsignedInteger("results");
    b->outcomes = r.object("outcomes");
    b->meanStageSeconds = r.object("mean_stage_seconds");
    b->submitted = r.unsignedInteger("submitted");
    b->finished = r.unsignedInteger("finished");
    b->cancelled = r.unsignedInteger("cancelled");
    b->waiting = r.unsignedInteger("waiting");
    b->building = r.unsignedInteger("building");
    b->running = r.unsignedInteger("running");
    if (std::optional<Json> runs = r.array("runs_per_device")) {
      std::vector<uint64_t> out;
      for (const JsonField &e : base.require("runs_per_device").elements())
        out.push_back(uint64_t(e.integer(0)));
      b->runsPerDevice = std::move(out);
    }
    if (std::optional<JsonField> exits = r.object("worker_exit", true))
      b->workerExit = readWorkerExits(*exits);
  } else if (Result *b = std::get_if<Result>(&m.body)) {
    b->outcome = r.any("outcome").value_or(Json());
    if (std::optional<JsonField> result = r.object("result", true))
      b->result = result->json();
    else
      JsonField(line, document + " (result)").require("result"); // fails: missing
  } else if (Error *b = std::get_if<Error>(&m.body)) {
    b->code = r.string("code");
    b->message = r.string("message");
  }
  r.keepRest(m.extra);
  return m;
}

} // namespace serve

} // namespace cudaperf::schema
