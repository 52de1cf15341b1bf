#include "cudaperf/Support/Subprocess.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace cudaperf::support {

std::string ProcessResult::describe() const {
  if (!started)
    return "could not start: " + startError;
  if (stalled)
    return "killed after making no progress (total " + std::to_string(int(seconds + 0.5)) + " s)";
  if (timedOut)
    return "timed out after " + std::to_string(int(seconds + 0.5)) + " s";
  if (exited)
    return "exit status " + std::to_string(exitCode);
  return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

std::string executableDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return ".";
  std::string p(buf, size_t(n));
  return p.substr(0, p.rfind('/'));
}

namespace {

std::string readHead(const std::string &path, size_t maxBytes, uint64_t &total) {
  std::string out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return out;
  struct stat st;
  total = fstat(fd, &st) == 0 ? uint64_t(st.st_size) : 0;
  size_t want = size_t(std::min<uint64_t>(maxBytes, total)); // a large cap costs nothing unused
  out.resize(want);
  size_t got = 0;
  while (got < want) {
    ssize_t n = read(fd, &out[got], want - got);
    if (n <= 0)
      break;
    got += size_t(n);
  }
  out.resize(got);
  close(fd);
  return out;
}

} // namespace

ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &options) {
  ProcessResult result;
  if (argv.empty()) {
    result.startError = "empty command";
    return result;
  }
  std::string outputPath = options.outputPath;
  bool temporary = outputPath.empty();
  if (temporary) {
    char tmpl[] = "/tmp/cudaperf-out-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) {
      result.startError = std::string("mkstemp: ") + strerror(errno);
      return result;
    }
    close(fd);
    outputPath = tmpl;
  }

  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char *> cargv;
  for (const auto &a : argv)
    cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);
  std::vector<std::string> envStrings;
  for (char **e = environ; *e; ++e) {
    std::string s = *e;
    bool replaced = false;
    for (const auto &x : options.extraEnv)
      if (s.compare(0, x.find('=') + 1, x, 0, x.find('=') + 1) == 0)
        replaced = true;
    if (!replaced)
      envStrings.push_back(s);
  }
  for (const auto &x : options.extraEnv)
    envStrings.push_back(x);
  std::vector<char *> cenv;
  for (auto &s : envStrings)
    cenv.push_back(const_cast<char *>(s.c_str()));
  cenv.push_back(nullptr);

  int outFd = open(outputPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (outFd < 0) {
    result.startError = outputPath + ": " + strerror(errno);
    return result;
  }
  std::string errorPath; // with separateStderr: a temporary file for stderr
  int errFd = outFd;
  if (options.separateStderr) {
    char tmpl[] = "/tmp/cudaperf-err-XXXXXX";
    errFd = mkostemp(tmpl, O_CLOEXEC);
    if (errFd < 0) {
      close(outFd);
      result.startError = std::string("mkstemp: ") + strerror(errno);
      return result;
    }
    errorPath = tmpl;
  }
  auto closeOutputs = [&] {
    close(outFd);
    if (errFd != outFd)
      close(errFd);
  };
  auto discardTemporaries = [&] { // when the program never started
    if (temporary)
      unlink(outputPath.c_str());
    if (!errorPath.empty())
      unlink(errorPath.c_str());
  };
  int errPipe[2]; // carries errno if exec fails
  if (pipe2(errPipe, O_CLOEXEC) != 0) {
    closeOutputs();
    discardTemporaries();
    result.startError = std::string("pipe: ") + strerror(errno);
    return result;
  }

  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    closeOutputs();
    discardTemporaries();
    close(errPipe[0]);
    close(errPipe[1]);
    result.startError = std::string("fork: ") + strerror(errno);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
    int devNull = open("/dev/null", O_RDONLY);
    if (devNull >= 0)
      dup2(devNull, 0);
    dup2(outFd, 1);
    dup2(errFd, 2);
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    if (options.fileSizeLimit > 0) {
      struct rlimit fsize = {rlim_t(options.fileSizeLimit), rlim_t(options.fileSizeLimit)};
      setrlimit(RLIMIT_FSIZE, &fsize);
      signal(SIGXFSZ, SIG_IGN);
    }
    execve(cargv[0], cargv.data(), cenv.data());
    if (!strchr(cargv[0], '/'))
      execvpe(cargv[0], cargv.data(), cenv.data());
    int err = errno;
    ssize_t ignored = write(errPipe[1], &err, sizeof err);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid); // also from the parent, so the group exists before any kill below
  closeOutputs();
  close(errPipe[1]);
  int execErrno = 0;
  ssize_t n = read(errPipe[0], &execErrno, sizeof execErrno);
  close(errPipe[0]);

  int status = 0;
  auto deadline = start + std::chrono::duration<double>(options.timeoutSeconds);
  auto pause = std::chrono::microseconds(200);
  off_t progressSize = -1;
  auto lastProgress = start;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid)
      break;
    if (r < 0 && errno != EINTR)
      break;
    auto now = std::chrono::steady_clock::now();
    if (!options.progressPath.empty() && options.stallSeconds > 0) {
      struct stat st;
      off_t size = stat(options.progressPath.c_str(), &st) == 0 ? st.st_size : 0;
      if (size != progressSize) {
        progressSize = size;
        lastProgress = now;
      } else if (std::chrono::duration<double>(now - lastProgress).count() >= options.stallSeconds) {
        result.stalled = true;
      }
    }
    if (now >= deadline || result.stalled) {
      result.timedOut = true;
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(5))
      pause *= 2;
  }
  kill(-pid, SIGKILL); // whatever the child left running in its group
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (n == sizeof execErrno) {
    result.startError = argv[0] + ": " + strerror(execErrno);
  } else {
    result.started = true;
    if (!result.timedOut && WIFEXITED(status)) {
      result.exited = true;
      result.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signal = WTERMSIG(status);
    }
  }
  result.output = readHead(outputPath, options.maxCapturedBytes, result.outputBytes);
  result.outputTruncated = result.outputBytes > result.output.size();
  if (temporary)
    unlink(outputPath.c_str());
  if (!errorPath.empty()) {
    uint64_t errorBytes = 0;
    result.errorOutput = readHead(errorPath, options.maxCapturedBytes, errorBytes);
    unlink(errorPath.c_str());
  }
  return result;
}

} // namespace cudaperf::support
