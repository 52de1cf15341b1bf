// cudaperf-emulate-task: checks a task's implementations on the CPU with the cudaemu emulator
// (test/dataset/emulator/cudaemu.h), against reference.c (c-to-cuda tasks) or, for a
// pytorch-to-cuda task without a reference here, against its baseline. Each implementation is
// compiled with g++ into a shared object behind cudaperf-eval's own entry shim and run in a
// forked process, on the task's seeded inputs, in both thread orders.
//
//   cudaperf-emulate-task [--configs small] [--sets N] [--jobs N] [--work DIR] [--sanitize]
//                         [--impls NAME,...] [--inputs-matter] TASK_DIR...
//
// --impls runs only the named implementations (the baseline is always run: it is a pytorch task's
// expectation). --inputs-matter also checks that every `in` pointer argument matters: run again with
// that argument alone redrawn (another seed; up to 3 draws), the outputs must change. An
// implementation that ignores an input (and a reference.c that agrees with it) computes something
// other than the task: a generator bug that comparing implementations with each other cannot see.
//
// Prints "ok TASK IMPL" or "FAIL TASK IMPL: why" per implementation, then "N passed, N failed".
// Exit status: 0 all passed, 1 a failure, 2 bad usage.
#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/Inputs.h"
#include "cudaperf/Runtime/Reference.h"
#include "cudaperf/Support/Subprocess.h"
#include "cudaperf/Runtime/Task.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <iostream>
#include <mutex>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace cudaperf::runtime;
using cudaperf::support::ProcessOptions;
using cudaperf::support::ProcessResult;
using cudaperf::support::runProcess;

namespace {

#ifndef CUDAEMU_DIR
#define CUDAEMU_DIR "test/dataset/emulator"
#endif

struct Options {
  std::vector<std::string> configs; // default: the first configuration
  int sets = 2;
  int jobs = 2;
  std::string work;
  bool sanitize = false;
  bool inputsMatter = false;
  std::vector<std::string> impls; // empty: all
  std::string cxx = "g++";
};

// Kernel launches and dynamic shared memory become calls the emulator defines.
std::string rewriteForEmulator(const std::string &source) {
  static const std::regex launch(R"(([A-Za-z_][\w:]*(?:\s*<[^;<>()]*>)?)\s*<<<(.*?)>>>\s*\()");
  static const std::regex dynamicShared(
      R"(extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?([A-Za-z_][\w\s]*?)\s+(\w+)\s*\[\s*\]\s*;)");
  std::string s = std::regex_replace(source, dynamicShared, "$1 *$2 = ($1 *)::cudaemu::dynamicShared();");
  s = std::regex_replace(s, launch, "::cudaemu::launch(::cudaemu::LaunchConfig($2), $1, ");
  static const std::regex emptyArgs(R"(::cudaemu::LaunchConfig\(([^;]*?)\), ([^,;]+), \s*\))");
  return std::regex_replace(s, emptyArgs, "::cudaemu::LaunchConfig($1), $2)");
}

std::string buildImpl(const Task &task, const std::string &impl, const std::string &dir, const Options &o) {
  std::string source;
  if (!readFile(task.implPath(impl), source))
    return "cannot read " + task.implPath(impl);
  makeDirs(dir);
  writeFile(dir + "/candidate.cu", rewriteForEmulator(source));
  writeFile(dir + "/shim.cu", generateEntryShim(task));
  std::vector<std::string> argv = {o.cxx, "-std=c++17", "-O1", "-fPIC", "-shared", "-w",
                                   "-include", std::string(CUDAEMU_DIR) + "/cudaemu.h",
                                   "-I", std::string(CUDAEMU_DIR) + "/include", "-x", "c++", dir + "/shim.cu",
                                   "-o", dir + "/impl.so"};
  if (o.sanitize)
    argv.insert(argv.begin() + 1, {"-fsanitize=address", "-fno-omit-frame-pointer"});
  ProcessOptions po;
  po.timeoutSeconds = 120;
  ProcessResult r = runProcess(argv, po);
  if (!r.succeeded())
    return "emulator build failed (" + r.describe() + "):\n" + r.output.substr(0, 3000);
  return "";
}

using InvokeFn = void (*)(void *const *, void *);
using FailureFn = const char *(*)();
using ResetFn = void (*)();

struct Library {
  void *handle = nullptr;
  InvokeFn invoke = nullptr;
  FailureFn failure = nullptr;
  ResetFn reset = nullptr;
};

std::string loadLibrary(const std::string &path, Library &lib) {
  lib.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle)
    return std::string("dlopen: ") + dlerror();
  lib.invoke = (InvokeFn)dlsym(lib.handle, kEntryShimSymbol);
  lib.failure = (FailureFn)dlsym(lib.handle, "cudaemu_failure");
  lib.reset = (ResetFn)dlsym(lib.handle, "cudaemu_reset");
  if (!lib.invoke || !lib.failure || !lib.reset)
    return "missing symbols in " + path;
  return "";
}

// Runs the implementation on `args` in place; "" or what went wrong.
std::string runOnce(const Task &task, const Library &lib, HostArgs &args, const char *order) {
  setenv("CUDAEMU_ORDER", order, 1);
  lib.reset();
  PackedArgs packed = packArgs(task, args);
  lib.invoke(packed.pointers.data(), nullptr);
  if (const char *f = lib.failure())
    return std::string("emulator (") + order + " order): " + f;
  return "";
}

std::string describeMismatch(const Mismatch &m) {
  std::ostringstream s;
  s << m.argument << "[" << m.index << "] = " << m.got << ", expected " << m.expected << " (" << m.badElements
    << " bad elements, " << m.nanElements << " NaN or unwritten)";
  return s.str();
}

bool outputsEqual(const Task &task, const HostArgs &a, const HostArgs &b) {
  for (size_t i = 0; i < task.args.size(); ++i)
    if (task.args[i].isPointer() && task.args[i].access != Argument::Access::In && a.buffers[i] != b.buffers[i])
      return false;
  return true;
}

// --inputs-matter: with one `in` pointer argument redrawn (the rest as in `inputs`), the outputs
// must differ from `outputs` (bit for bit) for at least one of up to 3 draws. An argument whose
// draws all equal the original (a constant distribution) is skipped. Names every ignored input.
std::string checkInputsMatter(const Task &task, const Library &lib, const Config &config, size_t c,
                              const HostArgs &inputs, const HostArgs &outputs) {
  std::vector<HostArgs> draws;
  for (size_t k = 0; k < 3; ++k)
    draws.push_back(makeHostArgs(task, config, inputSeed(0x1dea5, c, 1000 + k)));
  std::string ignored;
  for (size_t i = 0; i < task.args.size(); ++i) {
    if (!task.args[i].isPointer() || task.args[i].access != Argument::Access::In)
      continue;
    int redrawn = 0;
    bool matters = false;
    for (const HostArgs &other : draws) {
      if (other.buffers[i] == inputs.buffers[i])
        continue;
      ++redrawn;
      HostArgs work = inputs;
      work.buffers[i] = other.buffers[i];
      if (std::string e = runOnce(task, lib, work, "forward"); !e.empty())
        return "config " + config.name + ", input " + task.args[i].name + " redrawn: " + e;
      if ((matters = !outputsEqual(task, work, outputs)))
        break;
    }
    if (redrawn > 0 && !matters)
      ignored += (ignored.empty() ? "" : ", ") + task.args[i].name;
  }
  if (ignored.empty())
    return "";
  return "config " + config.name + ": the outputs do not depend on input(s) " + ignored +
         " (each redrawn up to 3 times, outputs bit-identical): the implementation ignores them";
}

// Child process: every set of every chosen configuration, both orders. Returns "" when correct.
std::string checkImpl(const Task &task, const std::string &soPath, const ReferenceLibrary *reference,
                      const Library *baseline, const Options &o) {
  Library lib;
  if (std::string e = loadLibrary(soPath, lib); !e.empty())
    return e;
  for (size_t c = 0; c < task.configs.size(); ++c) {
    const Config &config = task.configs[c];
    for (int set = 0; set < o.sets; ++set) {
      uint64_t seed = inputSeed(1, c, size_t(set));
      HostArgs inputs = makeHostArgs(task, config, seed);
      std::vector<std::vector<unsigned char>> expected;
      if (reference) {
        HostArgs work = inputs;
        reference->invoke(task, work);
        expected = work.buffers;
      } else {
        HostArgs work = inputs;
        if (std::string e = runOnce(task, *baseline, work, "forward"); !e.empty())
          return "baseline: " + e;
        expected = work.buffers;
      }
      for (const char *order : {"forward", "reverse"}) {
        HostArgs work = inputs;
        if (std::string e = runOnce(task, lib, work, order); !e.empty())
          return "config " + config.name + ": " + e;
        Mismatch m = compareOutputs(task, work.buffers, expected);
        if (!m.pass)
          return "config " + config.name + ", set " + std::to_string(set) + ", " + order + " order: wrong answer: " +
                 describeMismatch(m);
        for (size_t i = 0; i < task.args.size(); ++i)
          if (task.args[i].isPointer() && task.args[i].access == Argument::Access::In &&
              work.buffers[i] != inputs.buffers[i])
            return "config " + config.name + ": input " + task.args[i].name + " was modified";
        if (o.inputsMatter && set == 0 && std::string(order) == "forward")
          if (std::string e = checkInputsMatter(task, lib, config, c, inputs, work); !e.empty())
            return e;
      }
    }
  }
  return "";
}

// Runs fn in a forked child with a time limit; its returned message comes back through a pipe.
std::string inChild(double seconds, const std::function<std::string()> &fn) {
  int fds[2];
  if (pipe(fds) != 0)
    return "pipe failed";
  fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(unsigned(seconds));
    std::string msg = fn();
    ssize_t ignored = write(fds[1], msg.data(), msg.size());
    (void)ignored;
    _exit(msg.empty() ? 0 : 1);
  }
  close(fds[1]);
  std::string msg;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
    msg.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status))
    return msg + (msg.empty() ? "" : "; ") + "killed by signal " + std::to_string(WTERMSIG(status)) +
           (WTERMSIG(status) == SIGALRM ? " (time limit)" : " (crash: out-of-bounds access?)");
  if (WEXITSTATUS(status) != 0 && msg.empty())
    return "exit status " + std::to_string(WEXITSTATUS(status));
  return msg;
}

[[noreturn]] void usage(const std::string &m) {
  std::cerr << "cudaperf-emulate-task: " << m
            << "\nusage: cudaperf-emulate-task [--configs A,B] [--sets N] [--jobs N] [--work DIR] [--sanitize] "
               "[--impls NAME,...] [--inputs-matter] TASK_DIR...\n";
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) usage("missing value for " + a);
      return std::string(argv[++i]);
    };
    if (a == "--configs") o.configs = parseConfigList(value());
    else if (a == "--sets") o.sets = std::max(1, std::atoi(value().c_str()));
    else if (a == "--jobs") o.jobs = std::max(1, std::atoi(value().c_str()));
    else if (a == "--work") o.work = value();
    else if (a == "--sanitize") o.sanitize = true;
    else if (a == "--cxx") o.cxx = value();
    else if (a == "--impls") o.impls = parseConfigList(value());
    else if (a == "--inputs-matter") o.inputsMatter = true;
    else if (!a.empty() && a[0] == '-') usage("unknown option " + a);
    else dirs.push_back(a);
  }
  if (dirs.empty())
    usage("no task directories");
  if (o.work.empty()) {
    char tmpl[] = "/tmp/cudaperf-emulate-XXXXXX";
    if (!mkdtemp(tmpl)) usage("cannot create a work directory");
    o.work = tmpl;
  }
  Toolchain tc;
  tc.hostCompiler = "cc";
  tc.hostCompilerVersionText = "cc";
  BuildOptions bo;
  bo.cacheDir = o.work + "/reference-cache";

  struct Job {
    Task task;
    std::string impl, dir;
    std::string buildError;
  };
  std::vector<Job> jobs;
  int failed = 0, passed = 0;
  for (const auto &d : dirs) {
    try {
      Task t = loadTask(d);
      std::vector<std::string> chosen = o.configs.empty() ? std::vector<std::string>{t.configs[0].name} : o.configs;
      selectConfigs(t, chosen);
      for (const auto &impl : t.implNames())
        if (o.impls.empty() || impl == "baseline" || std::find(o.impls.begin(), o.impls.end(), impl) != o.impls.end())
          jobs.push_back({t, impl, o.work + "/" + t.name + "/" + impl, ""});
    } catch (const std::exception &e) {
      std::cout << "FAIL " << d << ": " << e.what() << "\n";
      ++failed;
    }
  }
  // Builds in parallel, then runs one at a time (each in its own child process).
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (int j = 0; j < o.jobs; ++j)
    threads.emplace_back([&] {
      for (size_t k; (k = next++) < jobs.size();)
        jobs[k].buildError = buildImpl(jobs[k].task, jobs[k].impl, jobs[k].dir, o);
    });
  for (auto &t : threads)
    t.join();

  std::map<std::string, std::string> referenceSo;
  for (auto &j : jobs) {
    std::string error = j.buildError;
    if (error.empty()) {
      const Task &t = j.task;
      std::string refPath;
      if (t.kind == TaskKind::CToCuda) {
        if (!referenceSo.count(t.dir)) {
          BuildResult r = buildReference(t, tc, bo);
          referenceSo[t.dir] = r.ok ? r.objectPath : "!" + r.log;
        }
        refPath = referenceSo[t.dir];
      }
      if (!refPath.empty() && refPath[0] == '!') {
        error = "reference.c does not build: " + refPath.substr(1, 2000);
      } else {
        std::string baselineSo = o.work + "/" + t.name + "/baseline/impl.so";
        error = inChild(300, [&]() -> std::string {
          ReferenceLibrary ref;
          Library base;
          if (!refPath.empty()) {
            std::string e;
            if (!ref.load(refPath, e)) return "reference: " + e;
          } else if (std::string e = loadLibrary(baselineSo, base); !e.empty()) {
            return "baseline: " + e;
          }
          return checkImpl(t, j.dir + "/impl.so", refPath.empty() ? nullptr : &ref, &base, o);
        });
      }
    }
    if (error.empty()) {
      ++passed;
      std::cout << "ok   " << j.task.name << " " << j.impl << "\n";
    } else {
      ++failed;
      std::cout << "FAIL " << j.task.name << " " << j.impl << ": " << error << "\n";
    }
    std::cout.flush();
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  return failed ? 1 : 0;
}
