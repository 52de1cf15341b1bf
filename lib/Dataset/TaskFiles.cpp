#include "TaskFiles.h"

#include "cudaperf/Runtime/SizeExpr.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sys/stat.h>

namespace cudaperf::dataset {

namespace {

// Integral numbers as JSON integers, so task.json says 1024 rather than 1024.0.
Json number(double v) {
  if (v == double(int64_t(v)))
    return int64_t(v);
  return v;
}

std::map<std::string, double> configParams(const ConfigSpec &c) {
  std::map<std::string, double> m;
  for (const auto &[k, v] : c.values)
    m[k] = v;
  return m;
}

int64_t evaluateExpr(const std::string &expr, const ConfigSpec &c, const std::string &where) {
  try {
    return runtime::SizeExpr::parse(expr).evaluate(configParams(c));
  } catch (const std::exception &e) {
    throw DatasetError(where + ": size expression '" + expr + "' in config " + c.name + ": " + e.what());
  }
}

bool isPyTorch(const TaskSpec &t) { return t.kind == Kind::PyTorch; }

// Dimension expressions of a pytorch task's pointer argument, as the importer infers them.
std::vector<std::string> importedDims(const TaskSpec &t, const ArgSpec &a) {
  std::vector<std::string> dims;
  for (const auto &d : a.shape) {
    std::vector<int64_t> values;
    for (const auto &c : t.configs)
      values.push_back(evaluateExpr(d, c, t.name + ": " + a.name));
    dims.push_back(inferDimExpr(values, t.configs));
  }
  return dims;
}

std::string compact(const Json &v) {
  if (v.is_object()) {
    std::string s = "{";
    bool first = true;
    for (const auto &[k, x] : v.items()) {
      s += (first ? "" : ", ") + Json(k).dump() + ": " + compact(x);
      first = false;
    }
    return s + "}";
  }
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + compact(v[i]);
    return s + "]";
  }
  return v.dump();
}

void writeText(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f.flush())
    throw DatasetError(path + ": cannot write: " + std::strerror(errno));
}

void makeDir(const std::string &path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      std::string prefix = path.substr(0, i);
      if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
        throw DatasetError(prefix + ": cannot create directory: " + std::strerror(errno));
    }
  }
}

} // namespace

std::string inferDimExpr(const std::vector<int64_t> &values, const std::vector<ConfigSpec> &configs) {
  std::vector<std::string> params;
  for (const auto &[k, v] : configs.at(0).values)
    params.push_back(k);
  auto param = [&](size_t c, const std::string &p) {
    for (const auto &[k, v] : configs[c].values)
      if (k == p) return int64_t(v);
    return int64_t(0);
  };
  auto fits = [&](auto f) {
    for (size_t c = 0; c < configs.size(); ++c)
      if (f(c) != values[c]) return false;
    return true;
  };
  for (const auto &p : params)
    if (fits([&](size_t c) { return param(c, p); })) return p;
  for (size_t i = 0; i < params.size(); ++i)
    for (size_t j = i; j < params.size(); ++j)
      if (fits([&](size_t c) { return param(c, params[i]) * param(c, params[j]); }))
        return params[i] + " * " + params[j];
  if (std::set<int64_t>(values.begin(), values.end()).size() == 1)
    return std::to_string(values[0]);
  for (const auto &p : params) {
    int64_t p0 = param(0, p), v0 = values[0];
    if (p0 > 0 && v0 % p0 == 0 && v0 / p0 > 1 && fits([&](size_t c) { return param(c, p) * (v0 / p0); }))
      return p + " * " + std::to_string(v0 / p0);
    if (v0 > 0 && p0 % v0 == 0 && p0 / v0 > 1) {
      int64_t k = p0 / v0;
      if (fits([&](size_t c) { return param(c, p) % k == 0 ? param(c, p) / k : int64_t(-1); }))
        return p + " / " + std::to_string(k);
    }
    if (v0 > p0 && fits([&](size_t c) { return param(c, p) + (v0 - p0); }))
      return p + " + " + std::to_string(v0 - p0);
    if (v0 < p0 && fits([&](size_t c) { return param(c, p) - (p0 - v0); }))
      return p + " - " + std::to_string(p0 - v0);
  }
  std::string seen;
  for (size_t c = 0; c < configs.size(); ++c)
    seen += fmt::format("{}{}={}", c ? ", " : "", configs[c].name, values[c]);
  throw DatasetError("a dimension (" + seen + ") has no size expression the importer can find");
}

std::string countExpr(const std::vector<std::string> &dims) {
  static const std::regex simple(R"(\w+( \* \w+)*)");
  std::string s;
  for (const auto &d : dims) {
    if (d == "1")
      continue;
    s += (s.empty() ? "" : " * ") + (std::regex_match(d, simple) ? d : "(" + d + ")");
  }
  return s.empty() ? "1" : s;
}

std::string entrySignature(const TaskSpec &t) {
  std::string s = "void " + t.name + "(";
  for (const auto &a : t.args) {
    if (a.pointer)
      s += (a.access == "in" ? "const " : "") + cType(a.dtype) + " *" + a.name + ", ";
    else
      s += cType(a.dtype) + " " + a.name + ", ";
  }
  return s + "cudaStream_t stream)";
}

void checkTaskSpec(const TaskSpec &t) {
  auto fail = [&](const std::string &m) { throw DatasetError(t.family + ": task " + t.name + ": " + m); };
  if (t.impls.size() < 3)
    fail(fmt::format("{} implementations; every task has at least 3", t.impls.size()));
  if (t.impls[0].name != "baseline")
    fail("the first implementation must be 'baseline'");
  std::set<std::string> implNames;
  for (const auto &i : t.impls) {
    if (!implNames.insert(i.name).second)
      fail("implementation '" + i.name + "' twice");
    if (i.strategies.empty())
      fail("implementation '" + i.name + "' has no strategy label");
  }
  if (t.configs.size() < 2)
    fail("fewer than 2 configurations");
  std::set<std::string> names;
  for (const auto &a : t.args) {
    if (!names.insert(a.name).second)
      fail("argument '" + a.name + "' twice");
    cType(a.dtype);
  }
  for (const auto &c : t.configs)
    for (const auto &a : t.args) {
      if (!a.pointer)
        continue;
      int64_t n = evaluateExpr(a.count.empty() || !a.shape.empty() ? countExpr(a.shape) : a.count, c,
                               t.name + ": " + a.name);
      if (n < 1)
        fail(fmt::format("argument {} has {} elements in config {}", a.name, n, c.name));
    }
  if (isPyTorch(t)) {
    bool scalars = false;
    size_t params = 0;
    for (const auto &a : t.args) {
      if (a.pointer && scalars)
        fail("pytorch tasks list pointers first, then the size parameters");
      if (a.pointer && a.shape.empty() && a.count != "1")
        fail("pointer " + a.name + " has no shape (a 0-d tensor has count \"1\" and no shape)");
      if (a.pointer && a.access == "in" && a.dist.is_null())
        fail("input " + a.name + " has no distribution (model.py's DISTRIBUTIONS needs one)");
      if (!a.pointer) {
        scalars = true;
        if (params >= t.configs[0].values.size() || t.configs[0].values[params].first != a.name)
          fail("scalar " + a.name + " is not the next CONFIGS key");
        ++params;
      }
    }
    if (params != t.configs[0].values.size())
      fail("every CONFIGS key must be a size-parameter argument");
  }
}

Json taskJson(const TaskSpec &t) {
  Json j;
  j["name"] = t.name;
  j["kind"] = taskKindName(t.kind);
  if (!t.description.empty())
    j["description"] = t.description;
  j["entry"] = t.name;
  Json args = Json::array(), inputs = Json::object(), shapes = Json::object();
  Json forwardArgs = Json::array(), outputs = Json::array();
  for (const auto &a : t.args) {
    Json arg;
    arg["name"] = a.name;
    arg["type"] = a.pointer ? "pointer" : "scalar";
    arg["dtype"] = a.dtype;
    if (a.pointer) {
      arg["access"] = a.access;
      if (isPyTorch(t)) {
        std::vector<std::string> dims = importedDims(t, a);
        arg["count"] = countExpr(dims);
        shapes[a.name] = dims;
        (a.access == "in" ? forwardArgs : outputs).push_back(a.name);
      } else {
        arg["count"] = a.count;
      }
      if (!a.dist.is_null())
        inputs[a.name] = a.dist;
    } else if (a.value) {
      arg["value"] = number(*a.value);
    }
    args.push_back(arg);
  }
  j["args"] = args;
  Json configs = Json::array();
  for (const auto &c : t.configs) {
    Json cj;
    cj["name"] = c.name;
    for (const auto &[k, v] : c.values)
      cj[k] = number(v);
    configs.push_back(cj);
  }
  j["configs"] = configs;
  if (!inputs.empty())
    j["inputs"] = inputs;
  if (!t.tolerances.is_null())
    j["tolerances"] = t.tolerances;
  if (!t.flags.empty())
    j["flags"] = t.flags;
  if (isPyTorch(t))
    j["pytorch"] = Json{{"module", "model.py"}, {"exported", "exported/{config}.pt"}, {"forward_args", forwardArgs},
                        {"outputs", outputs}, {"shapes", shapes}};
  return j;
}

std::string formatTaskJson(const Json &task) {
  std::string s = "{\n";
  size_t k = 0;
  for (const auto &[key, value] : task.items()) {
    std::string comma = ++k < task.size() ? "," : "";
    if (value.is_array() && !value.empty() && value[0].is_object()) {
      s += "  " + Json(key).dump() + ": [\n";
      for (size_t i = 0; i < value.size(); ++i)
        s += "    " + compact(value[i]) + (i + 1 < value.size() ? "," : "") + "\n";
      s += "  ]" + comma + "\n";
    } else if (value.is_object() && (key == "inputs" || key == "pytorch")) {
      s += "  " + Json(key).dump() + ": {\n";
      size_t i = 0;
      for (const auto &[a, b] : value.items())
        s += "    " + Json(a).dump() + ": " + compact(b) + (++i < value.size() ? "," : "") + "\n";
      s += "  }" + comma + "\n";
    } else {
      s += "  " + Json(key).dump() + ": " + compact(value) + comma + "\n";
    }
  }
  return s + "}\n";
}

void writeTaskFiles(const TaskSpec &t, const std::string &dir) {
  makeDir(dir + "/impls");
  writeText(dir + "/task.json", formatTaskJson(taskJson(t)));
  if (isPyTorch(t))
    writeText(dir + "/model.py", t.model);
  else
    writeText(dir + "/reference.c", t.reference);
  std::string entry = "// entry: " + entrySignature(t) + "\n";
  for (const auto &i : t.impls)
    writeText(dir + "/impls/" + i.name + ".cu", entry + i.source);
}

} // namespace cudaperf::dataset
