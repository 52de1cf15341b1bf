#include "cudaperf/Runtime/ServeProtocol.h"
#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Schema/Protocol.h"

#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/SourceGate.h"

#include <set>

namespace cudaperf::runtime {

using Json = nlohmann::ordered_json;

namespace {

ServeParse failure(const std::string &code, const std::string &message, const Json &id = nullptr) {
  ServeParse p;
  p.errorCode = code;
  p.errorMessage = message;
  p.id = id;
  return p;
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

ServeParse parseServeRequest(const std::string &line) { return parseServeRequest(line, ServePolicy()); }

ServeParse parseServeRequest(const std::string &line, const ServePolicy &policy) {
  Json doc;
  try {
    // Depth- and size-limited (support::parseJson): one line of 200 KB of brackets must be an error
    // message, not a stack overflow that loses every candidate in flight.
    support::JsonLimits limits;
    limits.maxDepth = kServeMaxDepth;
    limits.maxValues = kServeMaxValues;
    doc = support::parseJson(line, "request", limits);
  } catch (const support::SupportError &e) {
    return failure("bad_json", std::string("not JSON: ") + e.what());
  }
  if (!doc.is_object())
    return failure("bad_request", "a request is a JSON object");
  Json id = doc.contains("id") ? doc["id"] : Json();
  std::string key = idKey(id);
  Json echo = key.empty() ? Json() : id;

  ServeRequest r;
  std::string op = "evaluate";
  if (doc.contains("op")) {
    if (!doc["op"].is_string())
      return failure("bad_request", "\"op\" must be a string", echo);
    op = doc["op"].get<std::string>();
  }
  std::set<std::string> allowed;
  if (op == "evaluate") {
    r.op = ServeRequest::Op::Evaluate;
    allowed = {"op", "id", "task_dir", "candidate", "source", "name", "configs", "counters"};
  } else if (op == "cancel") {
    r.op = ServeRequest::Op::Cancel;
    allowed = {"op", "id"};
  } else if (op == "stats" || op == "ping") {
    r.op = op == "stats" ? ServeRequest::Op::Stats : ServeRequest::Op::Ping;
    allowed = {"op", "id"};
  } else if (op == "shutdown") {
    r.op = ServeRequest::Op::Shutdown;
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
  case ServeRequest::Op::Evaluate: {
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
        names = parseConfigList(c.get<std::string>());
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
  case ServeRequest::Op::Cancel:
    if (key.empty())
      return failure("bad_request", "a cancel request names the request to cancel in \"id\"");
    break;
  case ServeRequest::Op::Shutdown:
    if (doc.contains("drain")) {
      if (!doc["drain"].is_boolean())
        return failure("bad_request", "\"drain\" must be true or false", echo);
      r.drain = doc["drain"].get<bool>();
    }
    break;
  default:
    break;
  }
  ServeParse p;
  p.request = std::move(r);
  p.id = echo;
  return p;
}

Json serveResult(const Json &id, Json result) {
  return schema::serve::messageToJson(schema::serve::resultMessage(id, std::move(result)));
}

Json serveError(const Json &id, const std::string &code, const std::string &message) {
  return schema::serve::messageToJson(schema::serve::Message::make(schema::serve::Error{code, message}, id));
}

Json serveCancelled(const Json &id) {
  return schema::serve::messageToJson(schema::serve::Message::make(schema::serve::Cancelled{}, id));
}

} // namespace cudaperf::runtime
