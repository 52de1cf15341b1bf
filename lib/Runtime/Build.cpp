#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Support/SourceGate.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"
#include "cudaperf/Support/Toolkit.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace cudaperf::runtime {

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

bool writeFile(const std::string &path, const std::string &data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
  return bool(out);
}

bool makeDirs(const std::string &path) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      std::string prefix = path.substr(0, i);
      if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
        return false;
    }
  }
  return true;
}

using support::ProcessOptions;
using support::ProcessResult;
using support::runProcess;

// RLIMIT_AS of a compile: CUDAPERF_COMPILER_MEMORY_MB, default 8 GiB (nvcc's cicc reserves more
// address space than it touches; a vector_add needs under 1 GiB).
int64_t compilerMemoryLimit() {
  const char *v = std::getenv("CUDAPERF_COMPILER_MEMORY_MB");
  long long mb = v ? std::atoll(v) : 8192;
  return mb > 0 ? int64_t(mb) << 20 : 0;
}
using support::findInPath;

Toolchain findToolchain(const std::string &nvccOverride) {
  Toolchain tc;
  tc.nvcc = support::findNvcc(support::toolkitRoots(), nvccOverride);
  if (tc.nvcc.empty())
    throw std::runtime_error("nvcc not found (set CUDA_HOME or CUDAPERF_NVCC)");
  ProcessOptions po;
  po.timeoutSeconds = 30;
  ProcessResult r = runProcess({tc.nvcc, "--version"}, po);
  if (!r.succeeded())
    throw std::runtime_error(tc.nvcc + " --version failed: " + r.describe());
  tc.nvccVersionText = r.output;
  std::smatch m;
  if (std::regex_search(r.output, m, std::regex("V([0-9]+\\.[0-9]+\\.[0-9]+)")))
    tc.nvccVersion = m[1];
  const char *cc = std::getenv("CC");
  tc.hostCompiler = cc && *cc ? cc : findInPath("cc");
  if (tc.hostCompiler.empty())
    tc.hostCompiler = findInPath("gcc");
  if (!tc.hostCompiler.empty()) {
    ProcessResult v = runProcess({tc.hostCompiler, "--version"}, po);
    tc.hostCompilerVersionText = v.output;
  }
  return tc;
}

std::string defaultCacheDir() {
  std::string dir = support::cacheDirectory("build");
  return dir.empty() ? "/tmp/cudaperf-build-cache" : dir;
}

size_t buildCacheEntryLimit() {
  const char *v = std::getenv("CUDAPERF_BUILD_CACHE_ENTRIES");
  if (v && *v) {
    char *end = nullptr;
    unsigned long long n = std::strtoull(v, &end, 10);
    if (end && *end == '\0' && n > 0)
      return size_t(n);
  }
  return 2048;
}

// Names in a directory (no "." or ".."), or none if it cannot be read.
static std::vector<std::string> directoryNames(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, ".."))
        names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

size_t trimBuildCache(const std::string &cacheDir, size_t maxEntries, double graceSeconds) {
  std::vector<std::pair<timespec, std::string>> entries; // last use (status file's mtime), path
  for (const std::string &shard : directoryNames(cacheDir)) {
    if (shard.size() != 2)
      continue;
    std::string shardDir = cacheDir + "/" + shard;
    for (const std::string &key : directoryNames(shardDir)) {
      if (key.find(".tmp-") != std::string::npos) // a build in progress, or one being evicted
        continue;
      struct stat st;
      if (stat((shardDir + "/" + key + "/status").c_str(), &st) == 0)
        entries.emplace_back(st.st_mtim, shardDir + "/" + key);
    }
  }
  if (entries.size() <= maxEntries)
    return 0;
  std::sort(entries.begin(), entries.end(), [](const auto &a, const auto &b) {
    return a.first.tv_sec != b.first.tv_sec ? a.first.tv_sec < b.first.tv_sec : a.first.tv_nsec < b.first.tv_nsec;
  });
  time_t recent = time(nullptr) - time_t(graceSeconds);
  size_t removed = 0, left = entries.size();
  for (const auto &[used, path] : entries) {
    if (left <= maxEntries || used.tv_sec >= recent)
      break; // oldest first: the rest were used later
    // Renamed first, so a concurrent reader sees the whole entry or none of it.
    std::string doomed = path + ".tmp-evict-" + std::to_string(getpid());
    if (rename(path.c_str(), doomed.c_str()) != 0)
      continue;
    support::removeTree(doomed);
    ++removed;
    --left;
  }
  return removed;
}

// The call in a shim: pointers are passed as non-const T* (binds to both `T*` and `const T*`
// parameters), scalars as their C type, so the compiler checks arity and types for us.
static std::string shimCallArguments(const Task &task) {
  std::string s;
  for (size_t i = 0; i < task.args.size(); ++i) {
    const Argument &a = task.args[i];
    if (i) s += ", ";
    std::string idx = std::to_string(i);
    if (a.isPointer())
      s += std::string("(") + dtypeCType(a.dtype) + " *)args[" + idx + "]";
    else
      s += std::string("*(const ") + dtypeCType(a.dtype) + " *)args[" + idx + "]";
  }
  return s;
}

std::string entrySignature(const Task &task) {
  std::string s = "extern \"C\" void " + task.entry + "(";
  for (const Argument &a : task.args) {
    if (a.isPointer())
      s += std::string(a.access == Argument::Access::In ? "const " : "") + dtypeCType(a.dtype) + " *" + a.name;
    else
      s += std::string(dtypeCType(a.dtype)) + " " + a.name;
    s += ", ";
  }
  return s + "cudaStream_t stream)";
}

std::string generateEntryShim(const Task &task) {
  std::string s;
  s += "// Generated by cudaperf-eval for task \"" + task.name + "\"; calls the entry point with\n";
  s += "// arguments packed by the worker. Do not edit.\n";
  s += "#include <cuda_runtime.h>\n";
  s += "#include \"candidate.cu\"\n";
  s += "extern \"C\" __attribute__((visibility(\"default\"))) void " + std::string(kEntryShimSymbol) +
       "(void *const *args, cudaStream_t stream) {\n";
  s += "  " + task.entry + "(" + shimCallArguments(task) + (task.args.empty() ? "" : ", ") + "stream);\n";
  s += "}\n";
  return s;
}

std::string generateReferenceShim(const Task &task) {
  std::string s;
  s += "/* Generated by cudaperf-eval for task \"" + task.name + "\". Do not edit. */\n";
  s += "#include \"" + task.referencePath() + "\"\n";
  s += "__attribute__((visibility(\"default\"))) void " + std::string(kReferenceShimSymbol) +
       "(void *const *args) {\n";
  s += "  " + task.entry + "(" + shimCallArguments(task) + ");\n";
  s += "}\n";
  return s;
}

namespace {

std::string joinCommand(const std::vector<std::string> &argv) {
  std::string s;
  for (const auto &a : argv) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

// Builds in a private temporary directory and renames it into place, so concurrent
// evaluators sharing a cache never see a half-written object.
BuildResult buildCached(const std::string &key, const std::string &cacheDir, const std::string &objectName,
                        const std::vector<std::pair<std::string, std::string>> &files,
                        std::vector<std::string> argv, double timeoutSeconds, bool useCache) {
  BuildResult result;
  result.key = key;
  std::string finalDir = cacheDir + "/" + key.substr(0, 2) + "/" + key;
  std::string okMarker = finalDir + "/status";
  std::string status;
  if (useCache && readFile(okMarker, status)) {
    utimensat(AT_FDCWD, okMarker.c_str(), nullptr, 0); // its last use, for the cache's eviction order
    result.cached = true;
    result.ok = status == "ok";
    result.objectPath = finalDir + "/" + objectName;
    readFile(finalDir + "/build.log", result.log);
    readFile(finalDir + "/command", result.command);
    return result;
  }
  if (!makeDirs(cacheDir + "/" + key.substr(0, 2))) {
    result.log = "cannot create cache directory " + cacheDir;
    return result;
  }
  std::string tmpl = finalDir + ".tmp-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) {
    result.log = "cannot create " + tmpl;
    return result;
  }
  std::string work = buf.data();
  for (const auto &f : files)
    writeFile(work + "/" + f.first, f.second);
  // Relative names in argv are resolved in the build directory.
  for (auto &a : argv)
    if (a.rfind("@/", 0) == 0)
      a = work + a.substr(1);
  ProcessOptions po;
  po.timeoutSeconds = timeoutSeconds;
  po.outputPath = work + "/build.log";
  // Builds run ahead of the GPU on every core; the GPU's worker (its start, its host-side calls,
  // the timing loop's host thread) must not wait for a core behind them.
  po.niceIncrement = 10;
  // A compiler of hostile source gets no secrets of this process's environment, a bounded memory
  // (a macro bomb) and CPU time (docs/security.md, "Hostile clients and files").
  po.minimalEnvironment = true;
  po.addressSpaceLimit = compilerMemoryLimit();
  po.cpuSecondsLimit = int64_t(timeoutSeconds) + 5;
  ProcessResult r = runProcess(argv, po);
  result.seconds = r.seconds;
  // Paths inside the private build directory mean nothing to the reader: "candidate.cu(6)".
  auto strip = [&](std::string text) {
    for (size_t p; (p = text.find(work + "/")) != std::string::npos;)
      text.erase(p, work.size() + 1);
    return text;
  };
  result.command = strip(joinCommand(argv));
  // Messages located in other files (a header's lines) are not the candidate's to read.
  std::vector<std::string> own;
  for (const auto &f : files)
    own.push_back(f.first);
  result.log = support::keepOwnDiagnostics(strip(r.output), own);
  result.timedOut = r.timedOut;
  result.ok = r.succeeded();
  if (!r.started)
    result.log = r.describe();
  else if (r.timedOut)
    result.log += "\n[cudaperf-eval] compilation exceeded " + std::to_string(int(timeoutSeconds)) + " s and was killed\n";
  else if (!result.ok && r.exited == false)
    result.log += "\n[cudaperf-eval] compiler " + r.describe() + "\n";
  writeFile(work + "/command", result.command);
  // A timeout is not a property of the source (the machine may have been busy): not cached.
  if (r.started && !r.timedOut) {
    writeFile(work + "/status", result.ok ? "ok" : "failed");
    if (rename(work.c_str(), finalDir.c_str()) == 0) {
      work = finalDir;
      // Bounded: every hostile source is a new entry. Entries used in the last 10 minutes stay
      // (an evaluator may be about to load one), this one included.
      trimBuildCache(cacheDir, buildCacheEntryLimit(), 600);
    } else {
      // Another process finished the same key first: use its result, drop ours.
      std::string other;
      if (readFile(okMarker, other)) {
        ProcessOptions rm;
        runProcess({"/bin/rm", "-rf", work}, rm);
        work = finalDir;
        result.ok = other == "ok";
      }
    }
  }
  result.objectPath = work + "/" + objectName;
  return result;
}

} // namespace

BuildResult buildImplementation(const Task &task, const std::string &cuPath, const Toolchain &tc,
                                const BuildOptions &options) {
  std::string source;
  if (!readFile(cuPath, source)) {
    BuildResult r;
    r.log = cuPath + ": cannot be read";
    return r;
  }
  if (std::optional<std::string> why = support::refuseHostileSource(source)) {
    // Before nvcc sees it: an include of a server file, or a probe for one (docs/security.md).
    BuildResult r;
    r.log = "[cudaperf-eval] candidate.cu was refused before compiling: " + *why + "\n";
    return r;
  }
  std::string shim = generateEntryShim(task);
  std::vector<std::string> argv = {tc.nvcc, "-O3", "-arch=" + options.arch, "-lineinfo", "-shared",
                                   "-Xcompiler", "-fPIC", "-cudart", "shared"};
  for (const auto &f : task.flags)
    argv.push_back(f);
  // Unresolved host symbols fail the build here rather than the load on the GPU host.
  argv.insert(argv.end(), {"-Xlinker", "--no-undefined", "-o", "@/impl.so", "@/shim.cu"});
  support::Sha256 h;
  h.field("impl-v1").field(source).field(shim).field(tc.nvccVersionText);
  for (const auto &a : argv)
    h.field(a == tc.nvcc ? "nvcc" : a);
  BuildResult r = buildCached(h.hex(), options.cacheDir.empty() ? defaultCacheDir() : options.cacheDir, "impl.so",
                               {{"candidate.cu", source}, {"shim.cu", shim}}, argv, options.timeoutSeconds,
                               options.useCache);
  if (!r.ok && r.log.find("shim.cu(") != std::string::npos)
    r.log += "\n[cudaperf-eval] shim.cu calls the entry point; every implementation must define\n  " +
             entrySignature(task) + "\n";
  return r;
}

BuildResult buildReference(const Task &task, const Toolchain &tc, const BuildOptions &options) {
  BuildResult r;
  std::string source;
  if (!readFile(task.referencePath(), source)) {
    r.log = task.referencePath() + ": cannot be read";
    return r;
  }
  if (tc.hostCompiler.empty()) {
    r.log = "no host C compiler found (set CC)";
    return r;
  }
  std::string shim = generateReferenceShim(task);
  std::vector<std::string> argv = {tc.hostCompiler, "-O2", "-std=c11", "-shared", "-fPIC"};
  for (const auto &f : task.referenceFlags)
    argv.push_back(f);
  argv.insert(argv.end(), {"-o", "@/reference.so", "@/shim.c", "-lm"});
  support::Sha256 h;
  h.field("reference-v1").field(source).field(shim).field(tc.hostCompilerVersionText);
  for (const auto &a : argv)
    h.field(a);
  return buildCached(h.hex(), options.cacheDir.empty() ? defaultCacheDir() : options.cacheDir,
                     "reference.so", {{"shim.c", shim}}, argv, options.timeoutSeconds, options.useCache);
}

} // namespace cudaperf::runtime
