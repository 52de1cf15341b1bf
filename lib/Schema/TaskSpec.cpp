#include "cudaperf/Schema/TaskSpec.h"

#include "cudaperf/Schema/Manifest.h" // plainNameProblem
#include "ObjectIO.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace cudaperf::schema {

using support::member;
using support::SupportError;

namespace {

bool isIdentifier(const std::string &s) {
  if (s.empty() || s.size() > 255 || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
}

bool isFiniteNumber(const Json &v) { return v.is_number() && std::isfinite(v.get<double>()); }

std::vector<std::string> keysOf(const Json &object) {
  std::vector<std::string> keys;
  for (const auto &kv : object.items())
    keys.push_back(kv.key());
  return keys;
}

// Collects problems instead of stopping at the first, so a task author fixes them in one pass.
class Reader {
public:
  Reader(std::vector<std::string> &problems, std::string document = "task.json")
      : problems_(problems), document_(std::move(document)) {}

  // The top-level member each problem is about ("" for the document itself), parallel to problems.
  std::vector<std::string> members;

  void problem(const std::string &where, const std::string &what) {
    problems_.push_back(document_ + ": " + where + ": " + what);
    std::string top = where.substr(0, where.find_first_of(".["));
    if (top == "top level") {
      // "missing \"KEY\"" and "unknown key \"KEY\"" are about KEY; "must be an object" about the document.
      size_t q = what.find('"');
      top = q == std::string::npos ? "" : what.substr(q + 1, what.find('"', q + 1) - q - 1);
    }
    members.push_back(top);
  }

  void unknownKeys(const Json &obj, const std::set<std::string> &known, const std::string &where) {
    for (const auto &kv : obj.items())
      if (!known.count(kv.key()))
        problem(where, "unknown key \"" + kv.key() + "\"");
  }

  // A required string member; `path` is where the member sits ("args[0].name"), `parent` where a
  // missing one is reported.
  std::optional<std::string> requiredString(const Json &obj, const char *key, const std::string &parent,
                                            const std::string &path) {
    const Json *v = member(obj, key);
    if (!v) {
      problem(parent, std::string("missing \"") + key + "\"");
      return std::nullopt;
    }
    if (!v->is_string()) {
      problem(path, "must be a string");
      return std::nullopt;
    }
    return v->get<std::string>();
  }

  const Json *requiredArray(const Json &obj, const char *key, const std::string &parent) {
    const Json *v = member(obj, key);
    if (!v) {
      problem(parent, std::string("missing \"") + key + "\"");
      return nullptr;
    }
    if (!v->is_array()) {
      problem(key, "must be an array");
      return nullptr;
    }
    return v;
  }

  TaskArgument argument(const Json &v, const std::string &where) {
    TaskArgument a;
    if (!v.is_object()) {
      problem(where, "must be an object");
      return a;
    }
    a.keyOrder = keysOf(v);
    unknownKeys(v, {"name", "type", "dtype", "access", "count", "value", "tolerance"}, where);
    if (auto n = requiredString(v, "name", where, where + ".name")) {
      a.name = *n;
      if (!isIdentifier(a.name))
        problem(where + ".name", support::jsonSnippet(Json(a.name)) + " is not a C identifier");
      if (a.name == "stream")
        problem(where + ".name", "\"stream\" is reserved for the trailing cudaStream_t");
    }
    // A missing or wrong "type" reads as "scalar", as before, so the checks below still run.
    a.type = "scalar";
    if (auto t = requiredString(v, "type", where, where + ".type")) {
      a.type = *t;
      if (a.type != "pointer" && a.type != "scalar")
        problem(where + ".type", "expected \"pointer\" or \"scalar\"");
    }
    if (auto d = requiredString(v, "dtype", where, where + ".dtype"))
      a.dtype = *d;
    if (a.isPointer()) {
      if (auto acc = requiredString(v, "access", where, where + ".access")) {
        a.access = *acc;
        if (*acc != "in" && *acc != "out" && *acc != "inout")
          problem(where + ".access", "expected \"in\", \"out\" or \"inout\"");
      }
      if (const Json *c = member(v, "count")) {
        if (c->is_string() || c->is_number_integer())
          a.count = *c;
        else
          problem(where + ".count", "must be a size expression string or an integer");
      } else {
        problem(where, "pointer argument needs \"count\"");
      }
      if (member(v, "value"))
        problem(where + ".value", "only scalars have a fixed value");
    } else {
      if (member(v, "access") || member(v, "count"))
        problem(where, "scalars take neither \"access\" nor \"count\"");
      if (const Json *x = member(v, "value")) {
        if (isFiniteNumber(*x))
          a.value = *x;
        else
          problem(where + ".value", "must be a finite number");
      }
    }
    if (const Json *t = member(v, "tolerance"))
      a.tolerance = *t;
    return a;
  }

  std::optional<std::vector<std::string>> flagList(const Json &doc, const char *key) {
    const Json *v = member(doc, key);
    if (!v)
      return std::nullopt;
    std::vector<std::string> out;
    if (!v->is_array()) {
      problem(key, "must be an array of strings");
      return out;
    }
    for (const Json &f : *v) {
      if (!f.is_string() || f.get<std::string>().empty() || f.get<std::string>()[0] != '-')
        problem(key, "each flag must be a string starting with '-'");
      else
        out.push_back(f.get<std::string>());
    }
    return out;
  }

  TaskConfig config(const Json &c, const std::string &where) {
    TaskConfig cfg;
    if (!c.is_object()) {
      problem(where, "must be an object");
      return cfg;
    }
    cfg.keyOrder = keysOf(c);
    for (const auto &kv : c.items()) {
      if (kv.key() == "name") {
        if (kv.value().is_string())
          cfg.name = kv.value().get<std::string>();
        else
          problem(where + ".name", "must be a string");
      } else if (isFiniteNumber(kv.value())) {
        cfg.params.emplace_back(kv.key(), kv.value());
      } else {
        problem(where + "." + kv.key(), "parameter values must be finite numbers");
      }
    }
    return cfg;
  }

  // The "pytorch" object: required for pytorch-to-cuda tasks, refused for c-to-cuda ones.
  void pytorch(const Json &doc, TaskSpec &task) {
    const Json *p = member(doc, "pytorch");
    if (task.kind != "pytorch-to-cuda") {
      if (p && task.kind == "c-to-cuda")
        problem("pytorch", "only pytorch-to-cuda tasks have a PyTorch reference");
      return;
    }
    if (!p || !p->is_object()) {
      problem("pytorch", p ? "must be an object" : "missing (a pytorch-to-cuda task names its exported module)");
      return;
    }
    unknownKeys(*p, {"module", "exported", "forward_args", "outputs", "shapes"}, "pytorch");
    TaskPyTorch ref;
    ref.keyOrder = keysOf(*p);
    auto path = [&](const char *key, std::string &out) {
      const Json *v = member(*p, key);
      std::string where = std::string("pytorch.") + key;
      if (!v || !v->is_string() || v->get<std::string>().empty())
        problem(where, "must be a non-empty string");
      else if (const std::string &s = v->get<std::string>(); s[0] == '/' || s.find("..") != std::string::npos)
        problem(where, "must be a path inside the task directory");
      else if (!relativePathProblem(s).empty())
        problem(where, support::jsonSnippet(*v) + " " + relativePathProblem(s));
      else
        out = s;
    };
    path("module", ref.module);
    path("exported", ref.exported);
    if (!ref.exported.empty() && ref.exported.find("{config}") == std::string::npos)
      problem("pytorch.exported", "must contain {config} (one export per configuration)");
    auto names = [&](const char *key, std::vector<std::string> &out, bool outputs) {
      const Json *v = member(*p, key);
      if (!v || !v->is_array() || v->empty()) {
        problem(std::string("pytorch.") + key, "must be a non-empty array of argument names");
        return;
      }
      for (const Json &n : *v) {
        const TaskArgument *a = n.is_string() ? task.findArgument(n.get<std::string>()) : nullptr;
        if (!a || !a->isPointer() || a->isOutput() != outputs) {
          problem(std::string("pytorch.") + key,
                  (n.is_string() ? support::jsonSnippet(n) : std::string("an entry")) +
                      (outputs ? " is not an output pointer argument" : " is not an input pointer argument"));
          continue;
        }
        out.push_back(n.get<std::string>());
      }
    };
    names("forward_args", ref.forwardArgs, false);
    names("outputs", ref.outputs, true);
    const Json *shapes = member(*p, "shapes");
    if (!shapes || !shapes->is_object()) {
      problem("pytorch.shapes", "must be an object: pointer argument -> list of size expressions");
    } else {
      for (const auto &kv : shapes->items()) {
        std::string where = "pytorch.shapes." + kv.key();
        const TaskArgument *a = task.findArgument(kv.key());
        if (!a || !a->isPointer()) {
          problem(where, "not a pointer argument");
          continue;
        }
        if (!kv.value().is_array()) {
          problem(where, "must be a list of size expressions");
          continue;
        }
        bool ok = true;
        for (const Json &d : kv.value())
          if (!isFiniteNumber(d) && !d.is_string()) {
            problem(where, "each dimension must be a number or a size expression");
            ok = false;
          }
        if (ok)
          ref.shapes.emplace_back(kv.key(), kv.value());
      }
      auto hasShape = [&](const std::string &n) {
        return std::any_of(ref.shapes.begin(), ref.shapes.end(), [&](const auto &s) { return s.first == n; }) ||
               (shapes->contains(n) && member(*shapes, n)->is_array());
      };
      for (const std::string &n : ref.forwardArgs)
        if (!hasShape(n))
          problem("pytorch.shapes", "no shape for \"" + n + "\"");
      for (const std::string &n : ref.outputs)
        if (!hasShape(n))
          problem("pytorch.shapes", "no shape for \"" + n + "\"");
    }
    task.pytorch = std::move(ref);
  }

  TaskSpec document(const Json &doc) {
    TaskSpec task;
    if (!doc.is_object()) {
      problem("top level", "must be an object");
      return task;
    }
    task.keyOrder = keysOf(doc);
    unknownKeys(doc, {"name", "kind", "description", "entry", "args", "configs", "inputs", "tolerances", "flags",
                      "reference_flags", "pytorch"},
                "top level");
    if (auto n = requiredString(doc, "name", "top level", "name")) {
      task.name = *n;
      if (std::string why = plainNameProblem(task.name); !why.empty())
        problem("name", support::jsonSnippet(Json(task.name)) + " " + why);
    }
    if (const Json *d = member(doc, "description")) {
      if (d->is_string())
        task.description = d->get<std::string>();
      else
        problem("description", "must be a string");
    }
    if (auto k = requiredString(doc, "kind", "top level", "kind")) {
      task.kind = *k;
      if (task.kind != "c-to-cuda" && task.kind != "pytorch-to-cuda")
        problem("kind", support::jsonSnippet(Json(task.kind)) + " is neither \"c-to-cuda\" nor \"pytorch-to-cuda\"");
    }
    if (auto e = requiredString(doc, "entry", "top level", "entry")) {
      task.entry = *e;
      if (!isIdentifier(task.entry))
        problem("entry", support::jsonSnippet(Json(task.entry)) + " is not a C identifier");
    }
    if (const Json *args = requiredArray(doc, "args", "top level")) {
      if (args->size() > kMaxTaskArguments)
        problem("args", "more than " + std::to_string(kMaxTaskArguments) + " arguments");
      std::set<std::string> names;
      for (size_t i = 0; i < args->size() && i < kMaxTaskArguments; ++i) {
        std::string where = "args[" + std::to_string(i) + "]";
        TaskArgument a = argument((*args)[i], where);
        if (!a.name.empty() && !names.insert(a.name).second)
          problem(where + ".name", "duplicate argument \"" + a.name + "\"");
        task.args.push_back(std::move(a));
      }
      if (std::none_of(task.args.begin(), task.args.end(), [](const TaskArgument &a) { return a.isOutput(); }))
        problem("args", "no output argument (a pointer with access \"out\" or \"inout\")");
    }
    if (const Json *inputs = member(doc, "inputs"))
      task.inputs = *inputs;
    if (const Json *tolerances = member(doc, "tolerances"))
      task.tolerances = *tolerances;
    task.flags = flagList(doc, "flags");
    task.referenceFlags = flagList(doc, "reference_flags");
    if (const Json *cfgs = requiredArray(doc, "configs", "top level")) {
      if (cfgs->empty())
        problem("configs", "needs at least one configuration");
      if (cfgs->size() > kMaxTaskConfigs)
        problem("configs", "more than " + std::to_string(kMaxTaskConfigs) + " configurations");
      std::set<std::string> names;
      for (size_t i = 0; i < cfgs->size() && i < kMaxTaskConfigs; ++i) {
        std::string where = "configs[" + std::to_string(i) + "]";
        task.configs.push_back(config((*cfgs)[i], where));
        std::string name = task.configName(i);
        if (!names.insert(name).second)
          problem(where + ".name", "duplicate configuration \"" + name + "\"");
      }
    }
    pytorch(doc, task);
    return task;
  }

private:
  std::vector<std::string> &problems_;
  std::string document_;
};

} // namespace

TaskSpec TaskSpec::read(const Json &doc, std::vector<std::string> &problems) { return Reader(problems).document(doc); }

TaskSpec TaskSpec::fromJson(const Json &doc, const std::string &document) {
  std::vector<std::string> problems;
  TaskSpec spec = read(doc, problems);
  if (!problems.empty()) {
    std::string message = document + ": invalid task";
    for (const std::string &p : problems)
      message += "\n  " + p;
    throw SupportError(message);
  }
  return spec;
}

TaskSummary readTaskSummary(const Json &doc, const std::string &document) {
  std::vector<std::string> problems;
  Reader reader(problems, document);
  TaskSpec spec = reader.document(doc);
  std::string message;
  for (size_t i = 0; i < problems.size(); ++i) {
    const std::string &m = reader.members[i];
    if (m.empty() || m == "name" || m == "kind" || m == "configs")
      message += (message.empty() ? "" : "\n") + problems[i];
  }
  if (!message.empty())
    throw SupportError(message);
  TaskSummary summary{spec.name, spec.kind, {}};
  for (size_t i = 0; i < spec.configs.size(); ++i)
    summary.configs.push_back(spec.configName(i));
  return summary;
}

const TaskArgument *TaskSpec::findArgument(std::string_view argName) const {
  for (const TaskArgument &a : args)
    if (a.name == argName)
      return &a;
  return nullptr;
}

std::string TaskSpec::configName(size_t i) const {
  if (i < configs.size() && configs[i].name && !configs[i].name->empty())
    return *configs[i].name;
  return "config" + std::to_string(i);
}

Json TaskSpec::toJson() const {
  Json out = Json::object();
  out["name"] = name;
  out["kind"] = kind;
  if (description)
    out["description"] = *description;
  out["entry"] = entry;
  Json argList = Json::array();
  for (const TaskArgument &a : args) {
    Json j = Json::object();
    j["name"] = a.name;
    j["type"] = a.type;
    j["dtype"] = a.dtype;
    if (a.access)
      j["access"] = *a.access;
    if (a.count)
      j["count"] = *a.count;
    if (a.value)
      j["value"] = *a.value;
    if (a.tolerance)
      j["tolerance"] = *a.tolerance;
    argList.push_back(detail::inReadOrder(std::move(j), a.keyOrder));
  }
  out["args"] = argList;
  Json configList = Json::array();
  for (const TaskConfig &c : configs) {
    Json j = Json::object();
    if (c.name)
      j["name"] = *c.name;
    for (const auto &[key, value] : c.params)
      j[key] = value;
    configList.push_back(detail::inReadOrder(std::move(j), c.keyOrder));
  }
  out["configs"] = configList;
  if (inputs)
    out["inputs"] = *inputs;
  if (tolerances)
    out["tolerances"] = *tolerances;
  if (flags)
    out["flags"] = *flags;
  if (referenceFlags)
    out["reference_flags"] = *referenceFlags;
  if (pytorch) {
    Json p = Json::object();
    p["module"] = pytorch->module;
    p["exported"] = pytorch->exported;
    p["forward_args"] = pytorch->forwardArgs;
    p["outputs"] = pytorch->outputs;
    Json shapes = Json::object();
    for (const auto &[arg, dims] : pytorch->shapes)
      shapes[arg] = dims;
    p["shapes"] = shapes;
    out["pytorch"] = detail::inReadOrder(std::move(p), pytorch->keyOrder);
  }
  return detail::inReadOrder(std::move(out), keyOrder);
}

} // namespace cudaperf::schema
