#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Schema/TaskSpec.h"
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

bool fileExists(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The document's shape (keys, types, names, paths) is schema::TaskSpec's; this adds what needs the
// runtime's types: dtypes, size expressions, input distributions, buffer sizes, the flag
// allow-lists. Problems are collected, not thrown at the first, so a task author fixes them in one pass.
class TaskParser {
public:
  std::vector<std::string> problems;

  void problem(const std::string &where, const std::string &what) {
    problems.push_back("task.json: " + where + ": " + what);
  }

  std::optional<Tolerance> parseTolerance(const Json &v, const std::string &where) {
    if (!v.is_object()) {
      problem(where, "must be an object {\"atol\": x, \"rtol\": y}");
      return std::nullopt;
    }
    Tolerance t;
    for (const auto &kv : v.items()) {
      if ((kv.key() != "atol" && kv.key() != "rtol") || !kv.value().is_number() ||
          !(kv.value().get<double>() >= 0) || !std::isfinite(kv.value().get<double>())) {
        problem(where + "." + kv.key(), "expected \"atol\" or \"rtol\" with a finite number >= 0");
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
      if (!x || !x->is_number() || !std::isfinite(x->get<double>())) {
        problem(where, std::string("distribution \"") + k + "\" needs a finite number \"" + key + "\"");
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

  Argument parseArgument(const schema::TaskArgument &spec, const Json &raw, const std::string &where) {
    Argument a;
    a.name = spec.name;
    a.kind = spec.isPointer() ? Argument::Kind::Pointer : Argument::Kind::Scalar;
    if (raw.is_object() && raw.contains("dtype") && raw.at("dtype").is_string()) {
      if (auto dt = parseDtype(spec.dtype))
        a.dtype = *dt;
      else
        problem(where + ".dtype", "unknown dtype \"" + spec.dtype + "\" (f32 f64 i32 i64 u32 u8)");
    }
    if (spec.access)
      a.access = *spec.access == "out" ? Argument::Access::Out
                 : *spec.access == "inout" ? Argument::Access::InOut
                                           : Argument::Access::In;
    if (spec.count) {
      std::string text = spec.count->is_string() ? spec.count->get<std::string>() : std::to_string(spec.count->get<int64_t>());
      try {
        a.count = SizeExpr::parse(text);
      } catch (const SizeExprError &e) {
        problem(where + ".count", e.what());
      }
    }
    if (spec.value)
      a.value = spec.value->get<double>();
    if (spec.tolerance)
      a.tolerance = parseTolerance(*spec.tolerance, where + ".tolerance");
    return a;
  }

  // The "pytorch" object's size expressions, and each shape's agreement with its argument.
  void parsePyTorch(const schema::TaskSpec &spec, Task &task) {
    if (!spec.pytorch)
      return;
    const schema::TaskPyTorch &p = *spec.pytorch;
    PyTorchReference ref;
    ref.module = p.module;
    ref.exported = p.exported;
    ref.forwardArgs = p.forwardArgs;
    ref.outputs = p.outputs;
    auto argOf = [&](const std::string &name) -> const Argument * {
      for (const Argument &a : task.args)
        if (a.name == name)
          return &a;
      return nullptr;
    };
    for (const auto &[name, dimsJson] : p.shapes) {
      std::string where = "pytorch.shapes." + name;
      std::vector<SizeExpr> dims;
      for (const Json &d : dimsJson) {
        try {
          if (d.is_number()) {
            double x = d.get<double>();
            if (!(x >= 0 && x <= 9.2e18) || x != std::floor(x))
              problem(where, "a dimension must be a whole number >= 0");
            else
              dims.push_back(SizeExpr::parse(std::to_string((long long)x)));
          } else {
            dims.push_back(SizeExpr::parse(d.get<std::string>()));
          }
        } catch (const SizeExprError &e) {
          problem(where, e.what());
        }
      }
      ref.shapes[name] = std::move(dims);
    }
    // Each shape's product must be the argument's element count in every configuration.
    for (const auto &[name, dims] : ref.shapes) {
      const Argument *a = argOf(name);
      if (!a)
        continue;
      for (const Config &c : task.configs) {
        try {
          int64_t product = 1;
          for (const SizeExpr &d : dims)
            if (__builtin_mul_overflow(product, d.evaluate(c.params), &product))
              throw SizeExprError("the shape's product overflows");
          int64_t count = a->count.evaluate(c.params);
          if (product != count)
            problem("pytorch.shapes." + name, "has " + std::to_string(product) + " elements in configuration \"" +
                                                  c.name + "\", the argument " + std::to_string(count));
        } catch (const SizeExprError &) {
          // reported with the configuration
        }
      }
    }
    task.pytorch = std::move(ref);
  }

  Task parse(const Json &doc, const std::string &dir, bool checkFiles) {
    Task task;
    task.dir = dir;
    schema::TaskSpec spec = schema::TaskSpec::read(doc, problems);
    if (!doc.is_object())
      return task;
    task.name = spec.name;
    task.description = spec.description.value_or("");
    task.kind = spec.kind == "pytorch-to-cuda" ? TaskKind::PyTorchToCuda : TaskKind::CToCuda;
    task.entry = spec.entry;
    std::set<std::string> argNames;
    for (size_t i = 0; i < spec.args.size(); ++i) {
      const Json &raw = doc.at("args")[i];
      task.args.push_back(parseArgument(spec.args[i], raw, "args[" + std::to_string(i) + "]"));
      if (!spec.args[i].name.empty())
        argNames.insert(spec.args[i].name);
    }
    // Input distributions, keyed by argument name.
    if (spec.inputs) {
      if (!spec.inputs->is_object()) {
        problem("inputs", "must be an object keyed by argument name");
      } else {
        for (const auto &kv : spec.inputs->items()) {
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
      if (a.isPointer() && !dtypeIsFloat(a.dtype) &&
          !(spec.inputs && spec.inputs->is_object() && spec.inputs->contains(a.name))) {
        a.distribution.a = 0;
        a.distribution.b = 99;
      }
    if (spec.tolerances) {
      if (!spec.tolerances->is_object()) {
        problem("tolerances", "must be an object keyed by dtype");
      } else {
        for (const auto &kv : spec.tolerances->items()) {
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
    auto allowed = [&](const std::optional<std::vector<std::string>> &flags, const char *key, bool nvcc,
                       std::vector<std::string> &out) {
      if (!flags)
        return;
      for (const std::string &f : *flags) {
        if (std::string why = taskFlagRefusal(f, nvcc); !why.empty())
          problem(key, "\"" + f + "\" " + why);
        else
          out.push_back(f);
      }
    };
    allowed(spec.flags, "flags", true, task.flags);
    allowed(spec.referenceFlags, "reference_flags", false, task.referenceFlags);

    // Configurations: every size parameter and every scalar without a fixed value must be set.
    std::set<std::string> needed;
    for (const Argument &a : task.args) {
      if (a.isPointer())
        needed.insert(a.count.names().begin(), a.count.names().end());
      else if (!a.value)
        needed.insert(a.name);
    }
    for (size_t i = 0; i < spec.configs.size(); ++i) {
      std::string where = "configs[" + std::to_string(i) + "]";
      Config cfg;
      cfg.name = spec.configName(i);
      for (const auto &[key, value] : spec.configs[i].params)
        cfg.params[key] = value.get<double>();
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
    parsePyTorch(spec, task);
    if (checkFiles) {
      if (task.pytorch && !task.pytorch->module.empty() && !fileExists(dir + "/" + task.pytorch->module))
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
