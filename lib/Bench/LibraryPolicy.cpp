#include "cudaperf/Bench/LibraryPolicy.h"

#include "cudaperf/Support/Comments.h"

#include <algorithm>
#include <regex>

namespace cudaperf::bench {

namespace {

// How each library shows itself. Headers and entry-point prefixes are the libraries' documented
// names; kernel patterns are parts of the mangled names their kernels carry (namespaces, or the
// xmma prefixes of cuBLAS and cuDNN kernels).
struct LibrarySignature {
  const char *name;
  const char *includePattern; // after "#include <" or "#include \""
  const char *identifierPattern; // a call or a namespace use
  const char *sharedObject;   // named in a string for dlopen
  const char *kernelPattern;  // in a launched kernel's mangled name ("" for none)
};

const LibrarySignature kLibraries[] = {
    {"cublas", R"(cublas(_v2|_api)?\.h)", R"(\bcublas(?!Lt)[A-Z]\w*\s*\()", "libcublas.so",
     R"(^sm\d+_xmma_gemm|cublas(?!Lt))"},
    {"cublasLt", R"(cublasLt\.h)", R"(\bcublasLt[A-Z]\w*\s*\()", "libcublasLt.so", R"(cublasLt)"},
    {"cudnn", R"(cudnn(_\w+)?\.h)", R"(\bcudnn[A-Z]\w*\s*\()", "libcudnn", R"(cudnn|^sm\d+_xmma_(fprop|dgrad|wgrad))"},
    {"cufft", R"(cufft(XT|W)?\.h)", R"(\bcufft[A-Z]\w*\s*\()", "libcufft", R"(cufft)"},
    {"curand", R"(curand(_kernel)?\.h)", R"(\bcurand[A-Z_]\w*\s*\()", "libcurand", ""},
    {"cusolver", R"(cusolver\w*\.h)", R"(\bcusolver\w*\s*\()", "libcusolver", R"(cusolver)"},
    {"cusparse", R"(cusparse\.h)", R"(\bcusparse[A-Z]\w*\s*\()", "libcusparse", R"(cusparse)"},
    {"cub", R"(cub/)", R"(\bcub\s*::)", "", R"(N3cub)"},
    {"cutlass", R"(cutlass/)", R"(\bcutlass\s*::)", "", R"(7cutlass)"},
    {"thrust", R"(thrust/)", R"(\bthrust\s*::)", "", R"(N6thrust)"},
};

// std::regex (ECMAScript) has no look-behind but does have look-ahead, which the patterns use.
std::optional<std::string> firstMatch(const std::string &text, const std::string &pattern) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex(pattern)))
    return m.str(0);
  return std::nullopt;
}

} // namespace

std::vector<std::string> knownLibraries() {
  std::vector<std::string> names;
  for (const auto &lib : kLibraries)
    names.push_back(lib.name);
  std::sort(names.begin(), names.end());
  return names;
}

bool isKnownLibrary(const std::string &name) {
  return std::any_of(std::begin(kLibraries), std::end(kLibraries), [&](const auto &l) { return name == l.name; });
}

std::string withoutComments(const std::string &source) {
  std::string out = source;
  for (const support::CommentSpan &comment : support::commentSpans(source))
    for (size_t i = comment.begin; i < comment.end; ++i)
      if (out[i] != '\n')
        out[i] = ' ';
  return out;
}

std::optional<LibraryUse> findDisallowedLibrary(const std::string &source,
                                                const std::vector<std::string> &launchedKernels,
                                                const std::vector<std::string> &disallowed) {
  if (disallowed.empty())
    return std::nullopt;
  std::string code = withoutComments(source);
  for (const auto &lib : kLibraries) {
    if (std::find(disallowed.begin(), disallowed.end(), lib.name) == disallowed.end())
      continue;
    if (auto m = firstMatch(code, std::string(R"(#\s*include\s*[<"])") + lib.includePattern))
      return LibraryUse{lib.name, *m + (m->back() == '/' ? "..." : "")};
    if (auto m = firstMatch(code, lib.identifierPattern))
      return LibraryUse{lib.name, "uses " + *m};
    if (*lib.sharedObject && code.find(lib.sharedObject) != std::string::npos)
      return LibraryUse{lib.name, "names " + std::string(lib.sharedObject)};
    if (*lib.kernelPattern)
      for (const std::string &k : launchedKernels)
        if (firstMatch(k, lib.kernelPattern))
          return LibraryUse{lib.name, "launched kernel " + k};
  }
  if (auto m = firstMatch(code, R"(\b(dlopen|dlsym|dlmopen)\s*\()"))
    return LibraryUse{"dynamic loading", "uses " + *m + " (could load any disallowed library)"};
  return std::nullopt;
}

} // namespace cudaperf::bench
