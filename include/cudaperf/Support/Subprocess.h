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
  // Added to the child's nice value (0: as this process): work that may wait, such as builds
  // queued ahead, yields the CPU to work that something waits for.
  int niceIncrement = 0;
  // When set, the child is also killed (as timed out, with `stalled`) once this file has not
  // grown for stallSeconds: the worker appends a line before every step.
  std::string progressPath;
  double stallSeconds = 0;
  // When set, a progress file whose last line contains this marker means the child is done with
  // its work: it is killed (with its group) right away instead of waited for, so a process's
  // teardown (a CUDA context's) does not delay whoever waits for its result.
  std::string doneMarker;
  // With doneMarker: once the marker is seen and the group killed, the child is reaped by
  // backgroundReaper() instead of here, so the kernel's cleanup of the dead process (a CUDA
  // context's teardown in the driver, about a tenth of a second) is not waited for either.
  bool reapInBackground = false;
  // Only the variables of childEnvironmentAllowed() (and extraEnv) are passed: no token or key of
  // this process's environment reaches a compiler or an analyzer of hostile source.
  bool minimalEnvironment = false;
  // When > 0, RLIMIT_AS (bytes) and RLIMIT_CPU (seconds) of the child, inherited by what it starts
  // (nvcc's cicc and ptxas each get their own): a macro bomb fails with out-of-memory instead of
  // taking the host's memory. Not for a process that creates a CUDA context (it reserves more
  // address space than it uses).
  int64_t addressSpaceLimit = 0;
  int64_t cpuSecondsLimit = 0;
  // The child is killed (SIGKILL) when the thread that started it ends, this process included:
  // runProcess sets it, since its thread waits for the child.
  bool dieWithParent = false;
};

// Process-wide settings for every child started from now on (a service sets them once in main):
// minimalEnvironment for all of them; the limits for children whose program's file name is in
// `limitedPrograms` (all of them when empty).
struct ChildPolicy {
  bool minimalEnvironment = false;
  int64_t addressSpaceLimit = 0;
  int64_t cpuSecondsLimit = 0;
  std::vector<std::string> limitedPrograms;
  std::vector<std::string> keepVariables; // more names for the minimal environment
};
void setChildPolicy(const ChildPolicy &policy);
// The minimal environment's variables: PATH, HOME, USER, LOGNAME, LANG, LANGUAGE, TZ, TMPDIR,
// LD_LIBRARY_PATH, and names starting with LC_, CUDA_, NVIDIA_ or CUDAPERF_ (plus keepVariables).
bool childEnvironmentAllowed(const std::string &name);

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

// A child started by spawnProcess and supervised later (superviseProcess): a pool worker waits
// for its job on a pipe; a long-lived helper talks over stdin and stdout.
struct ChildProcess {
  int pid = -1;
  int stdinFd = -1;  // the write end of its stdin, when piped (close it for EOF)
  int stdoutFd = -1; // the read end of its stdout, when piped (stderr then goes to the output file)
  std::string outputPath;
  bool temporaryOutput = false;
  std::string errorPath; // with separateStderr: stderr's temporary file, read back and removed
  std::string startError;
  bool running() const { return pid > 0; }
};

// Starts argv in its own process group with the options' output file, file-size limit and
// environment; stdin and stdout optionally piped (descriptors close-on-exec in this process).
ChildProcess spawnProcess(const std::vector<std::string> &argv, const ProcessOptions &options, bool pipeStdin = false,
                          bool pipeStdout = false);
// Waits for the child under the options' limits, counted from now (timeout, stall, done marker),
// kills its group, and collects its output. The child is finished afterwards.
ProcessResult superviseProcess(ChildProcess &child, const ProcessOptions &options);
// Kills the child's group and reaps it (a no-op for a finished one).
void stopProcess(ChildProcess &child);

// Reaps killed children on a thread of its own (ProcessOptions::reapInBackground). Until a child
// is reaped its process still exists, and may still hold a GPU: pending() says which.
class BackgroundReaper {
public:
  struct Stats {
    uint64_t reaped = 0;
    double totalSeconds = 0; // from hand-over to reaped, summed
    double maxSeconds = 0;
  };
  // Takes a child whose group was killed; it must not be waited for elsewhere.
  void reap(int pid);
  std::vector<int> pending() const;
  // Waits until every child handed over so far is reaped.
  void drain();
  Stats stats() const;

private:
  friend BackgroundReaper &backgroundReaper();
  BackgroundReaper();
  struct State;
  State *state_; // never freed: its thread may be waiting on a child while the program exits
};

BackgroundReaper &backgroundReaper();

// From now on SIGTERM, SIGINT and SIGHUP first kill the process group of every child still running
// (each is in a group of its own, so a signal to this process alone would leave them running: a
// worker in an endless kernel, a holder keeping GPU memory), then end this process as the signal
// would. For programs that own their children (cudaperf-eval); call once, early in main.
void killChildrenOnTermination();

// From now on a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) writes "PROGRAM: fatal
// signal ... while running; stack:" and the stack's return addresses with the symbols the executable
// exports (link with ENABLE_EXPORTS for its own) to stderr, kills every child's process group as
// killChildrenOnTermination does, and ends the process as the signal would (the exit status shows it).
// For the long-running learning programs, whose crash would otherwise be a bare "Segmentation fault".
void reportFatalSignals(const char *program);

// Directory of the running executable (to find the worker beside cudaperf-eval).
std::string executableDir();

// Removes `path` and, for a directory, everything under it (symbolic links removed, never followed);
// true when nothing is left there, else false with the first failure in `error`. Instead of
// std::filesystem::remove_all in every program that links LibTorch: on the GPU host the wheel's
// libtorch.so exports its own copy of remove_all, which the dynamic linker binds first, and that copy
// jumped to address 0 on a non-empty directory (the RL trainer's second state save, H200, LibTorch 2.11).
bool removeTree(const std::string &path, std::string *error = nullptr);

} // namespace cudaperf::support
