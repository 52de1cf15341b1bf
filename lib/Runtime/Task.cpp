#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Support/Json.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace cudaperf::runtime {

using support::Json;
using support::member;

Tolerance defaultTolerance(Dtype d) {
  switch (d) {
  case Dtype::F32: return {1e-4, 1e-4};
  case Dtype::F64: return {1e-8, 1e-8};
  default: return {0, 0};
  }
}

Tolerance Task::toleranceFor(const Argument &a) const {
  if (a.tolerance)
    return *a.tolerance;
  auto it = tolerances.find(a.dtype);
  return it != tolerances.end() ? it->second : defaultTolerance(a.dtype);
}

std::vector<std::string> Task::implNames() const {
  std::vector<std::string> names;
  if (DIR *d = opendir((dir + "/impls").c_str())) {
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 3 && n.compare(n.size() - 3, 3, ".cu") == 0)
        names.push_back(n.substr(0, n.size() - 3));
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool Task::hasBaseline() const {
  struct stat st;
  return stat(baselinePath().c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<int64_t> Task::counts(const Config &c) const {
  std::vector<int64_t> out;
  for (const Argument &a : args)
    out.push_back(a.isPointer() ? a.count.evaluate(c.params) : 0);
  return out;
}

double Task::scalarValue(const Argument &a, const Config &c) const {
  auto it = c.params.find(a.name);
  if (it != c.params.end())
    return it->second;
  return a.value.value_or(0);
}

static std::string joinProblems(const std::vector<std::string> &problems) {
  std::string s = "invalid task";
  for (const auto &p : problems)
    s += "\n  " + p;
  return s;
}

TaskError::TaskError(const std::vector<std::string> &problems)
    : std::runtime_error(joinProblems(problems)), problems(problems) {}

namespace {

bool isIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
}

bool fileExists(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Collects problems instead of stopping at the first, so a task author fixes them in one pass.
class TaskParser {
public:
  std::vector<std::string> problems;

  void problem(const std::string &where, const std::string &what) {
    problems.push_back("task.json: " + where + ": " + what);
  }

  enum class Kind { String, Array };

  const Json *require(const Json &obj, const std::string &key, const std::string &where, Kind kind) {
    const Json *v = member(obj, key);
    if (!v) {
      problem(where, "missing \"" + key + "\"");
      return nullptr;
    }
    if (kind == Kind::String ? !v->is_string() : !v->is_array()) {
      problem(where + "." + key, kind == Kind::String ? "must be a string" : "must be an array");
      return nullptr;
    }
    return v;
  }

  std::optional<Tolerance> parseTolerance(const Json &v, const std::string &where) {
    if (!v.is_object()) {
      problem(where, "must be an object {\"atol\": x, \"rtol\": y}");
      return std::nullopt;
    }
    Tolerance t;
    for (const auto &kv : v.items()) {
      if ((kv.key() != "atol" && kv.key() != "rtol") || !kv.value().is_number() ||
          kv.value().get<double>() < 0) {
        problem(where + "." + kv.key(), "expected \"atol\" or \"rtol\" with a number >= 0");
        continue;
      }
      (kv.key() == "atol" ? t.atol : t.rtol) = kv.value().get<double>();
    }
    return t;
  }

  Distribution parseDistribution(const Json &v, const std::string &where, Dtype dtype) {
    Distribution d;
    if (!dtypeIsFloat(dtype)) { d.a = 0; d.b = 99; }
    if (!v.is_object()) {
      problem(where, "must be an object");
      return d;
    }
    const Json *kind = member(v, "dist");
    std::string k = kind && kind->is_string() ? kind->get<std::string>() : "";
    auto num = [&](const char *key, double &out) {
      const Json *x = member(v, key);
      if (!x || !x->is_number()) {
        problem(where, std::string("distribution \"") + k + "\" needs a number \"" + key + "\"");
        return;
      }
      out = x->get<double>();
    };
    if (k == "uniform") {
      d.kind = Distribution::Kind::Uniform;
      num("min", d.a);
      num("max", d.b);
      if (d.a > d.b)
        problem(where, "min > max");
      if (!dtypeIsFloat(dtype) && (d.a != std::floor(d.a) || d.b != std::floor(d.b)))
        problem(where, "integer argument needs integer min and max");
    } else if (k == "normal") {
      d.kind = Distribution::Kind::Normal;
      num("mean", d.a);
      num("std", d.b);
      if (!dtypeIsFloat(dtype))
        problem(where, "\"normal\" is for floating-point arguments");
    } else if (k == "constant") {
      d.kind = Distribution::Kind::Constant;
      num("value", d.a);
    } else {
      problem(where + ".dist", "expected \"uniform\", \"normal\" or \"constant\"");
    }
    return d;
  }

  Argument parseArgument(const Json &v, const std::string &where) {
    Argument a;
    if (!v.is_object()) {
      problem(where, "must be an object");
      return a;
    }
    static const std::set<std::string> known = {"name", "type", "dtype", "access", "count", "value",
                                                "tolerance"};
    for (const auto &kv : v.items())
      if (!known.count(kv.key()))
        problem(where, "unknown key \"" + kv.key() + "\"");
    if (const Json *n = require(v, "name", where, Kind::String)) {
      a.name = n->get<std::string>();
      if (!isIdentifier(a.name))
        problem(where + ".name", "\"" + a.name + "\" is not a C identifier");
      if (a.name == "stream")
        problem(where + ".name", "\"stream\" is reserved for the trailing cudaStream_t");
    }
    // "type" is "pointer" or "scalar"; "dtype" the element type.
    std::string type = "scalar";
    if (const Json *t = require(v, "type", where, Kind::String)) {
      type = t->get<std::string>();
      if (type != "pointer" && type != "scalar")
        problem(where + ".type", "expected \"pointer\" or \"scalar\"");
    }
    a.kind = type == "pointer" ? Argument::Kind::Pointer : Argument::Kind::Scalar;
    if (const Json *d = require(v, "dtype", where, Kind::String)) {
      if (auto dt = parseDtype(d->get<std::string>()))
        a.dtype = *dt;
      else
        problem(where + ".dtype", "unknown dtype \"" + d->get<std::string>() + "\" (f32 f64 i32 i64 u32 u8)");
    }
    if (a.isPointer()) {
      if (const Json *acc = require(v, "access", where, Kind::String)) {
        const std::string &s = acc->get<std::string>();
        if (s == "in") a.access = Argument::Access::In;
        else if (s == "out") a.access = Argument::Access::Out;
        else if (s == "inout") a.access = Argument::Access::InOut;
        else problem(where + ".access", "expected \"in\", \"out\" or \"inout\"");
      }
      if (const Json *c = member(v, "count")) {
        std::string text = c->is_string() ? c->get<std::string>()
                           : c->is_number_integer() ? std::to_string(c->get<int64_t>()) : "";
        if (text.empty()) {
          problem(where + ".count", "must be a size expression string or an integer");
        } else {
          try {
            a.count = SizeExpr::parse(text);
          } catch (const SizeExprError &e) {
            problem(where + ".count", e.what());
          }
        }
      } else {
        problem(where, "pointer argument needs \"count\"");
      }
      if (member(v, "value"))
        problem(where + ".value", "only scalars have a fixed value");
    } else {
      if (member(v, "access") || member(v, "count"))
        problem(where, "scalars take neither \"access\" nor \"count\"");
      if (const Json *x = member(v, "value")) {
        if (x->is_number()) a.value = x->get<double>();
        else problem(where + ".value", "must be a number");
      }
    }
    if (const Json *t = member(v, "tolerance"))
      a.tolerance = parseTolerance(*t, where + ".tolerance");
    return a;
  }

  // The "pytorch" object: required for pytorch-to-cuda tasks, refused for c-to-cuda ones.
  void parsePyTorch(const Json &doc, Task &task) {
    const Json *p = member(doc, "pytorch");
    if (task.kind == TaskKind::CToCuda) {
      if (p)
        problem("pytorch", "only pytorch-to-cuda tasks have a PyTorch reference");
      return;
    }
    if (!p || !p->is_object()) {
      problem("pytorch", p ? "must be an object" : "missing (a pytorch-to-cuda task names its exported module)");
      return;
    }
    static const std::set<std::string> known = {"module", "exported", "forward_args", "outputs", "shapes"};
    for (const auto &kv : p->items())
      if (!known.count(kv.key()))
        problem("pytorch", "unknown key \"" + kv.key() + "\"");
    PyTorchReference ref;
    auto text = [&](const char *key, std::string &out) {
      const Json *v = member(*p, key);
      if (!v || !v->is_string() || v->get<std::string>().empty())
        problem(std::string("pytorch.") + key, "must be a non-empty string");
      else if (v->get<std::string>()[0] == '/' || v->get<std::string>().find("..") != std::string::npos)
        problem(std::string("pytorch.") + key, "must be a path inside the task directory");
      else
        out = v->get<std::string>();
    };
    text("module", ref.module);
    text("exported", ref.exported);
    if (!ref.exported.empty() && ref.exported.find("{config}") == std::string::npos)
      problem("pytorch.exported", "must contain {config} (one export per configuration)");
    auto argOf = [&](const std::string &name) -> const Argument * {
      for (const Argument &a : task.args)
        if (a.name == name)
          return &a;
      return nullptr;
    };
    auto names = [&](const char *key, std::vector<std::string> &out, bool outputs) {
      const Json *v = member(*p, key);
      if (!v || !v->is_array() || v->empty()) {
        problem(std::string("pytorch.") + key, "must be a non-empty array of argument names");
        return;
      }
      for (const Json &n : (*v)) {
        const Argument *a = n.is_string() ? argOf(n.get<std::string>()) : nullptr;
        if (!a || !a->isPointer() || a->isOutput() != outputs) {
          problem(std::string("pytorch.") + key,
                  (n.is_string() ? "\"" + n.get<std::string>() + "\"" : std::string("an entry")) +
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
        const Argument *a = argOf(kv.key());
        if (!a || !a->isPointer()) {
          problem(where, "not a pointer argument");
          continue;
        }
        if (!kv.value().is_array()) {
          problem(where, "must be a list of size expressions");
          continue;
        }
        std::vector<SizeExpr> dims;
        for (const Json &d : kv.value()) {
          try {
            if (d.is_number())
              dims.push_back(SizeExpr::parse(std::to_string((long long)d.get<double>())));
            else if (d.is_string())
              dims.push_back(SizeExpr::parse(d.get<std::string>()));
            else
              problem(where, "each dimension must be a number or a size expression");
          } catch (const SizeExprError &e) {
            problem(where, e.what());
          }
        }
        ref.shapes[kv.key()] = std::move(dims);
      }
      for (const std::string &n : ref.forwardArgs)
        if (!ref.shapes.count(n))
          problem("pytorch.shapes", "no shape for \"" + n + "\"");
      for (const std::string &n : ref.outputs)
        if (!ref.shapes.count(n))
          problem("pytorch.shapes", "no shape for \"" + n + "\"");
      // Each shape's product must be the argument's element count in every configuration.
      if (const Json *cfgs = member(doc, "configs"); cfgs && cfgs->is_array())
        for (const auto &[name, dims] : ref.shapes) {
          const Argument *a = argOf(name);
          for (const Config &c : task.configs) {
            try {
              int64_t product = 1;
              for (const SizeExpr &d : dims)
                product *= d.evaluate(c.params);
              int64_t count = a->count.evaluate(c.params);
              if (product != count)
                problem("pytorch.shapes." + name, "has " + std::to_string(product) + " elements in configuration \"" +
                                                      c.name + "\", the argument " + std::to_string(count));
            } catch (const SizeExprError &) {
              // reported with the configuration
            }
          }
        }
    }
    task.pytorch = std::move(ref);
  }

  Task parse(const Json &doc, const std::string &dir, bool checkFiles) {
    Task task;
    task.dir = dir;
    if (!doc.is_object()) {
      problem("top level", "must be an object");
      return task;
    }
    static const std::set<std::string> known = {"name", "kind", "description", "entry", "args", "configs",
                                                "inputs", "tolerances", "flags", "reference_flags", "pytorch"};
    for (const auto &kv : doc.items())
      if (!known.count(kv.key()))
        problem("top level", "unknown key \"" + kv.key() + "\"");
    if (const Json *n = require(doc, "name", "top level", Kind::String))
      task.name = n->get<std::string>();
    if (const Json *d = member(doc, "description"); d && d->is_string())
      task.description = d->get<std::string>();
    if (const Json *k = require(doc, "kind", "top level", Kind::String)) {
      if (k->get<std::string>() == "c-to-cuda") task.kind = TaskKind::CToCuda;
      else if (k->get<std::string>() == "pytorch-to-cuda") task.kind = TaskKind::PyTorchToCuda;
      else problem("kind", "expected \"c-to-cuda\" or \"pytorch-to-cuda\"");
    }
    if (const Json *e = require(doc, "entry", "top level", Kind::String)) {
      task.entry = e->get<std::string>();
      if (!isIdentifier(task.entry))
        problem("entry", "\"" + task.entry + "\" is not a C identifier");
    }
    std::set<std::string> argNames;
    if (const Json *args = require(doc, "args", "top level", Kind::Array)) {
      for (size_t i = 0; i < args->size(); ++i) {
        std::string where = "args[" + std::to_string(i) + "]";
        Argument a = parseArgument((*args)[i], where);
        if (!a.name.empty() && !argNames.insert(a.name).second)
          problem(where + ".name", "duplicate argument \"" + a.name + "\"");
        task.args.push_back(std::move(a));
      }
      bool anyOutput = std::any_of(task.args.begin(), task.args.end(),
                                   [](const Argument &a) { return a.isOutput(); });
      if (!anyOutput)
        problem("args", "no output argument (a pointer with access \"out\" or \"inout\")");
    }
    // Input distributions, keyed by argument name.
    if (const Json *inputs = member(doc, "inputs")) {
      if (!inputs->is_object()) {
        problem("inputs", "must be an object keyed by argument name");
      } else {
        for (const auto &kv : inputs->items()) {
          auto it = std::find_if(task.args.begin(), task.args.end(),
                                 [&](const Argument &a) { return a.name == kv.key(); });
          if (it == task.args.end() || !it->isPointer() || it->access == Argument::Access::Out) {
            problem("inputs." + kv.key(), "not a pointer argument the entry reads");
            continue;
          }
          it->distribution = parseDistribution(kv.value(), "inputs." + kv.key(), it->dtype);
        }
      }
    }
    for (Argument &a : task.args)
      if (a.isPointer() && !dtypeIsFloat(a.dtype) && !(member(doc, "inputs") && member(*member(doc, "inputs"), a.name))) {
        a.distribution.a = 0;
        a.distribution.b = 99;
      }
    if (const Json *tols = member(doc, "tolerances")) {
      if (!tols->is_object()) {
        problem("tolerances", "must be an object keyed by dtype");
      } else {
        for (const auto &kv : tols->items()) {
          auto dt = parseDtype(kv.key());
          if (!dt) {
            problem("tolerances." + kv.key(), "unknown dtype");
            continue;
          }
          if (auto t = parseTolerance(kv.value(), "tolerances." + kv.key()))
            task.tolerances[*dt] = *t;
        }
      }
    }
    auto stringList = [&](const char *key, std::vector<std::string> &out) {
      const Json *v = member(doc, key);
      if (!v)
        return;
      if (!v->is_array()) {
        problem(key, "must be an array of strings");
        return;
      }
      for (const auto &f : (*v)) {
        if (!f.is_string() || f.get<std::string>().empty() || f.get<std::string>()[0] != '-')
          problem(key, "each flag must be a string starting with '-'");
        else if (std::string why = taskFlagRefusal(f.get<std::string>(), std::string(key) == "flags"); !why.empty())
          problem(key, "\"" + f.get<std::string>() + "\" " + why);
        else
          out.push_back(f.get<std::string>());
      }
    };
    stringList("flags", task.flags);
    stringList("reference_flags", task.referenceFlags);

    // Configurations: every size parameter and every scalar without a fixed value must be set.
    std::set<std::string> needed;
    for (const Argument &a : task.args) {
      if (a.isPointer())
        needed.insert(a.count.names().begin(), a.count.names().end());
      else if (!a.value)
        needed.insert(a.name);
    }
    if (const Json *cfgs = require(doc, "configs", "top level", Kind::Array)) {
      if (cfgs->empty())
        problem("configs", "needs at least one configuration");
      std::set<std::string> cfgNames;
      for (size_t i = 0; i < cfgs->size(); ++i) {
        const Json &c = (*cfgs)[i];
        std::string where = "configs[" + std::to_string(i) + "]";
        if (!c.is_object()) {
          problem(where, "must be an object");
          continue;
        }
        Config cfg;
        for (const auto &kv : c.items()) {
          if (kv.key() == "name") {
            if (kv.value().is_string()) cfg.name = kv.value().get<std::string>();
            else problem(where + ".name", "must be a string");
          } else if (kv.value().is_number()) {
            cfg.params[kv.key()] = kv.value().get<double>();
          } else {
            problem(where + "." + kv.key(), "parameter values must be numbers");
          }
        }
        if (cfg.name.empty())
          cfg.name = "config" + std::to_string(i);
        if (!cfgNames.insert(cfg.name).second)
          problem(where + ".name", "duplicate configuration \"" + cfg.name + "\"");
        for (const std::string &n : needed)
          if (!cfg.params.count(n))
            problem(where, "does not set \"" + n + "\"");
        for (const auto &kv : cfg.params)
          if (!needed.count(kv.first) && !argNames.count(kv.first))
            problem(where + "." + kv.first, "is neither a size parameter nor a scalar argument");
        bool complete = std::all_of(needed.begin(), needed.end(),
                                    [&](const std::string &n) { return cfg.params.count(n) > 0; });
        if (complete) {
          for (const Argument &a : task.args) {
            if (a.isPointer()) {
              try {
                int64_t n = a.count.evaluate(cfg.params);
                if (n <= 0)
                  problem(where, "\"" + a.name + "\" has " + std::to_string(n) + " elements");
                else if (n > kMaxArgumentBytes / int64_t(dtypeSize(a.dtype)))
                  problem(where, "\"" + a.name + "\" is larger than 16 GiB");
              } catch (const SizeExprError &e) {
                problem(where, e.what());
              }
            } else if (!dtypeIsFloat(a.dtype)) {
              double v = task.scalarValue(a, cfg);
              if (v != std::floor(v))
                problem(where + "." + a.name, "integer scalar needs an integer value");
            }
          }
        }
        task.configs.push_back(std::move(cfg));
      }
    }
    parsePyTorch(doc, task);
    if (checkFiles) {
      if (task.pytorch && !fileExists(dir + "/" + task.pytorch->module))
        problems.push_back(dir + "/" + task.pytorch->module + ": missing (the task's PyTorch reference)");
      if (task.kind == TaskKind::CToCuda && !fileExists(task.referencePath()))
        problems.push_back(task.referencePath() + ": missing (a c-to-cuda task needs reference.c)");
      if (task.kind == TaskKind::CToCuda && !fileExists(task.baselinePath()))
        problems.push_back(task.baselinePath() +
                           ": missing (a c-to-cuda task needs impls/baseline.cu; a pytorch-to-cuda task may go "
                           "without: it is measured against PyTorch eager)");
    }
    return task;
  }
};

std::string absolutePath(const std::string &p) {
  if (!p.empty() && p[0] == '/')
    return p;
  char buf[4096];
  if (!getcwd(buf, sizeof buf))
    return p;
  return std::string(buf) + "/" + p;
}

} // namespace

std::string PyTorchReference::exportedPath(const std::string &taskDir, const std::string &config) const {
  std::string rel = exported;
  if (size_t at = rel.find("{config}"); at != std::string::npos)
    rel.replace(at, 8, config);
  return taskDir + "/" + rel;
}

bool tasksTrusted() {
  const char *v = std::getenv("CUDAPERF_TRUST_TASKS");
  return v && std::string(v) == "1";
}

std::string taskFlagRefusal(const std::string &flag, bool nvcc) {
  if (tasksTrusted())
    return "";
  // What a task legitimately tunes: optimisation, language level, macros, math modes, register
  // caps, and libraries by name. Anything that names a program, a file or a directory (-ccbin,
  // -Xcompiler=-wrapper,..., -include, -I/..., @file, -o) is refused: a task is not trusted to run
  // commands on the evaluating host (docs/security.md).
  static const std::regex nvccFlags(
      R"(-O[0-3s]?|--?use_fast_math|-lineinfo|--?extended-lambda|--?expt-relaxed-constexpr|--?expt-extended-lambda|)"
      R"(--?restrict|-w|-Wno-[A-Za-z0-9-]+|--?std=c\+\+(11|14|17|20)|-D[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?|)"
      R"(-U[A-Za-z_][A-Za-z0-9_]*|--?maxrregcount=[0-9]+|--?(ftz|prec-div|prec-sqrt|fmad)=(true|false)|)"
      R"(-l(cublas|cublasLt|curand|cufft|cusparse|cusolver|m)|-rdc=(true|false)|-Xptxas=-(v|O[0-3])|)"
      R"(--default-stream=(legacy|per-thread))");
  static const std::regex hostFlags(
      R"(-O[0-3s]?|-Ofast|-std=(c|gnu)(89|99|11|17|18)|-D[A-Za-z_][A-Za-z0-9_]*(=[A-Za-z0-9_.+-]*)?|)"
      R"(-U[A-Za-z_][A-Za-z0-9_]*|-lm|-fopenmp|-ffast-math|-fno-[a-z-]+|-march=native|-mtune=native|-w|-Wno-[A-Za-z0-9-]+)");
  if (std::regex_match(flag, nvcc ? nvccFlags : hostFlags))
    return "";
  return "is not on the allow-list of task flags (docs/task-format.md; --trust-tasks to allow any)";
}

Task parseTask(const std::string &jsonText, const std::string &dir, bool checkFiles) {
  TaskParser parser;
  Json doc;
  try {
    doc = support::parseJson(jsonText, "task.json");
  } catch (const support::SupportError &e) {
    throw TaskError({e.what()});
  }
  Task task = parser.parse(doc, dir, checkFiles);
  if (!parser.problems.empty())
    throw TaskError(parser.problems);
  return task;
}

std::vector<std::string> parseConfigList(const std::string &text) {
  std::vector<std::string> names;
  std::stringstream list(text);
  for (std::string name; std::getline(list, name, ',');)
    if (!name.empty())
      names.push_back(name);
  return names;
}

void selectConfigs(Task &task, const std::vector<std::string> &names) {
  if (names.empty())
    return;
  std::vector<std::string> problems;
  for (const std::string &n : names)
    if (std::none_of(task.configs.begin(), task.configs.end(), [&](const Config &c) { return c.name == n; }))
      problems.push_back(task.dir + "/task.json: no configuration \"" + n + "\"");
  if (!problems.empty())
    throw TaskError(problems);
  std::vector<Config> kept;
  for (Config &c : task.configs)
    if (std::find(names.begin(), names.end(), c.name) != names.end())
      kept.push_back(std::move(c));
  task.configs = std::move(kept);
}

Task loadTask(const std::string &taskDir) {
  std::string dir = absolutePath(taskDir);
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  std::string text;
  try {
    text = support::readRegularFile(dir + "/task.json", kMaxTaskJsonBytes); // not /dev/zero, not a FIFO
  } catch (const support::SupportError &e) {
    throw TaskError({e.what()});
  }
  return parseTask(text, dir, true);
}

} // namespace cudaperf::runtime
