// Runs a program in its own process group with a wall-clock limit, so a hung compiler or a
// candidate stuck in a kernel is killed together with anything it started.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::support {

struct ProcessOptions {
  double timeoutSeconds = 60;
  // stdout and stderr go, together, to this file (created or truncated); empty: a temporary
  // file that is read back into ProcessResult::output and removed.
  std::string outputPath;
  // stderr apart from stdout: into ProcessResult::errorOutput (first maxCapturedBytes), so that
  // output is exactly the program's stdout (a document it prints).
  bool separateStderr = false;
  // Bytes of output kept in ProcessResult::output.
  size_t maxCapturedBytes = 64 * 1024;
  // When > 0, RLIMIT_FSIZE for the child: writes past this size fail with EFBIG (SIGXFSZ is
  // ignored in the child) instead of filling the disk.
  int64_t fileSizeLimit = 0;
  std::vector<std::string> extraEnv; // "NAME=value", added to (or replacing in) the environment
  // When set, the child is also killed (as timed out, with `stalled`) once this file has not
  // grown for stallSeconds: the worker appends a line before every step.
  std::string progressPath;
  double stallSeconds = 0;
};

struct ProcessResult {
  bool started = false;
  std::string startError; // when !started
  bool timedOut = false;
  bool stalled = false;   // timed out because progressPath stopped growing
  bool exited = false;    // exited normally: exitCode is valid
  int exitCode = -1;
  int signal = 0;         // killed by this signal (SIGKILL after a timeout)
  double seconds = 0;
  std::string output;     // first maxCapturedBytes of stdout+stderr (stdout alone with separateStderr)
  std::string errorOutput; // with separateStderr: first maxCapturedBytes of stderr
  uint64_t outputBytes = 0;
  bool outputTruncated = false;

  bool succeeded() const { return started && exited && exitCode == 0 && !timedOut; }
  std::string describe() const; // "exit status 1", "signal 11 (Segmentation fault)", "timed out after 5 s"
};

ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &options);

// Directory of the running executable (to find the worker beside cudaperf-eval).
std::string executableDir();

} // namespace cudaperf::support
