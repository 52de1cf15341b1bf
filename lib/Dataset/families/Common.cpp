#include "Common.h"

#include <fmt/format.h>

namespace cudaperf::dataset {

namespace {
const char *kSmCountHelper = R"(
static int smCount() {
  static int count = 0;
  if (count == 0) {
    int device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
    if (count <= 0)
      count = 1;
  }
  return count;
}
)";
} // namespace

Json uniformDist(double lo, double hi) { return Json{{"dist", "uniform"}, {"min", lo}, {"max", hi}}; }
Json normalDist(double mean, double stddev) { return Json{{"dist", "normal"}, {"mean", mean}, {"std", stddev}}; }

ArgSpec pointerArg(const std::string &name, const std::string &dtype, const std::string &access,
                   const std::string &count, Json dist) {
  ArgSpec a;
  a.name = name;
  a.pointer = true;
  a.dtype = dtype;
  a.access = access;
  a.count = count;
  a.dist = std::move(dist);
  return a;
}

ArgSpec sizeArg(const std::string &name) {
  ArgSpec a;
  a.name = name;
  a.dtype = "i32";
  return a;
}

ArgSpec scalarArg(const std::string &name, const std::string &dtype, double value) {
  ArgSpec a;
  a.name = name;
  a.dtype = dtype;
  a.value = value;
  return a;
}

std::string entryParams(const TaskSpec &t) {
  std::string s;
  for (const auto &a : t.args) {
    if (!s.empty())
      s += ", ";
    if (a.pointer)
      s += (a.access == "in" ? "const " : "") + cType(a.dtype) + " *" + a.name;
    else
      s += cType(a.dtype) + " " + a.name;
  }
  return s;
}

std::string argNames(const TaskSpec &t) {
  std::string s;
  for (const auto &a : t.args)
    s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

ImplSpec implementation(const std::string &name, std::vector<std::string> strategies, Expected expected,
                        std::string source) {
  ImplSpec i;
  i.name = name;
  i.strategies = std::move(strategies);
  i.expected = expected;
  // smCount() only where it is called, so no implementation carries an unused function.
  size_t include = source.find("#include <cuda_runtime.h>\n");
  if (source.find("smCount()") != std::string::npos && include != std::string::npos)
    source.insert(include + std::string("#include <cuda_runtime.h>\n").size(), kSmCountHelper);
  i.source = std::move(source);
  return i;
}


std::string cudaPrelude() { return "#include <cuda_runtime.h>\n"; }

std::string referencePrelude() {
  return "#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
         "static inline int imin(int a, int b) { return a < b ? a : b; }\n"
         "static inline int imax(int a, int b) { return a > b ? a : b; }\n"
         "static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); } /* a CUDA function, not C's */\n";
}

ConfigSpec config(const std::string &name, std::vector<std::pair<std::string, double>> values) {
  return ConfigSpec{name, std::move(values)};
}

long long roundUp(long long v, long long m) { return (v + m - 1) / m * m; }

} // namespace cudaperf::dataset
