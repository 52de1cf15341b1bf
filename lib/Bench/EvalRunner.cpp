// cudaperf-bench runs the evaluator as a program (its own sandboxing, caches and exit codes stay
// its own): one cudaperf-eval --batch over every candidate, results as JSON Lines.
#include "cudaperf/Bench/Bench.h"
#include "cudaperf/Bench/BenchError.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

namespace cudaperf::bench {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void runError(const std::string &message) { throw BenchError(BenchError::Kind::Run, message); }

} // namespace

int runInheritingOutput(const std::vector<std::string> &argv, std::string &why) {
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    why = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  if (pid == 0) {
    execvp(args[0], args.data());
    std::fprintf(stderr, "cudaperf-bench: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      why = std::string("waitpid: ") + std::strerror(errno);
      return -1;
    }
  if (WIFSIGNALED(status)) {
    why = "killed by signal " + std::to_string(WTERMSIG(status));
    return -1;
  }
  return WEXITSTATUS(status);
}

std::vector<std::string> runEvaluator(const std::string &evalPath, const CandidateSet &candidates, const Suite &suite,
                                      const std::string &workDir, const std::string &resultsPath, int jobs,
                                      const std::vector<std::string> &extraArgs) {
  std::error_code ec;
  fs::create_directories(workDir, ec);
  std::string batch = (fs::path(workDir) / "eval.batch").string();
  std::ofstream out(batch);
  if (!out)
    runError(batch + ": cannot be written");
  out << "# cudaperf-bench: suite " << suite.name << ", candidates " << candidates.dir << "\n";
  size_t lines = 0;
  for (const CandidateFile &f : candidates.files) {
    const SuiteTask *t = suite.find(f.task);
    if (!t || !t->present)
      continue;
    // The batch format splits on whitespace.
    if (f.path.find_first_of(" \t\n") != std::string::npos || t->dir.find_first_of(" \t\n") != std::string::npos)
      runError(f.path + ": paths with spaces cannot be passed to cudaperf-eval --batch; rename it");
    out << t->dir << " " << f.path << "\n";
    ++lines;
  }
  out.close();
  if (!out)
    runError(batch + ": cannot be written");
  if (lines == 0)
    runError("no candidate belongs to a task that is present in suite " + suite.name);
  std::vector<std::string> argv = {evalPath,   "--batch", batch,   "--jsonl", "--summary", "--output",
                                   resultsPath, "--jobs",  std::to_string(std::max(1, jobs))};
  argv.insert(argv.end(), extraArgs.begin(), extraArgs.end());
  std::string why;
  int rc = runInheritingOutput(argv, why);
  if (rc < 0)
    runError(evalPath + " " + why);
  if (rc == 127)
    runError(evalPath + ": cannot be run (use --eval PATH)");
  // 0: all written; 1: some internal_error (the results say which); 2-4: it rejected its input.
  if (rc != 0 && rc != 1)
    runError(evalPath + " exited with status " + std::to_string(rc) + " (docs/eval-result.md, \"Exit status\")");
  if (!fs::exists(resultsPath) || fs::file_size(resultsPath) == 0)
    runError(evalPath + " wrote no results to " + resultsPath + " (exit status " + std::to_string(rc) + ")");
  return argv;
}

} // namespace cudaperf::bench
