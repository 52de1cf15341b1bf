#include "cudaperf/Reward/ServiceEvaluator.h"

#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/Subprocess.h"
#include "cudaperf/Support/Toolkit.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <poll.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace cudaperf::reward {

namespace {

using support::Json;
namespace serve = schema::serve;

class ServiceEvaluator : public Evaluator {
public:
  explicit ServiceEvaluator(ServiceOptions o) : options_(std::move(o)) {
    if (options_.evalPath.empty()) {
      std::string beside = support::executableDir() + "/cudaperf-eval";
      options_.evalPath = access(beside.c_str(), X_OK) == 0 ? beside : support::findInPath("cudaperf-eval");
    }
    if (options_.evalPath.empty()) throw RewardError("cudaperf-eval not found beside this program or on PATH");
    std::signal(SIGPIPE, SIG_IGN); // a service that died must be an error on write, not the end of the trainer
  }

  ~ServiceEvaluator() override {
    std::lock_guard<std::mutex> lock(mutex_);
    stop();
  }

  std::string describe() const override {
    return "cudaperf-eval --serve (" + options_.evalPath + (options_.compileOnly ? ", --compile-only" : "") + ")";
  }

  Json evaluate(const std::string &taskDir, const std::string &candidatePath) override {
    std::future<Json> result;
    int64_t id;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (dead_) stop(); // it died since the last candidate: reap it, start another
      if (pid_ <= 0) start();
      id = nextId_++;
      result = pending_[id].get_future();
      // The text, not the path: the service takes no file names from its clients (docs/eval-serve.md).
      serve::Request request;
      request.id = id;
      request.taskDir = taskDir;
      request.source = support::readRegularFile(candidatePath, size_t(64) << 20);
      request.name = "candidate.cu";
      if (!writeAll(support::writeJson(serve::requestToJson(request)) + "\n")) {
        pending_.erase(id);
        stop();
        throw RewardError("cudaperf-eval --serve: the service stopped reading requests");
      }
    }
    if (result.wait_for(std::chrono::duration<double>(options_.timeoutSeconds)) != std::future_status::ready) {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.erase(id);
      serve::Request cancel;
      cancel.op = serve::Request::Op::Cancel;
      cancel.id = id;
      writeAll(support::writeJson(serve::requestToJson(cancel)) + "\n");
      throw RewardError("cudaperf-eval --serve: no result for " + candidatePath + " within " +
                        std::to_string(int(options_.timeoutSeconds)) + " s");
    }
    return result.get(); // rethrows the service's error for this request
  }

private:
  // Under mutex_.
  void start() {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) throw RewardError("cudaperf-eval --serve: pipe: " + std::string(strerror(errno)));
    std::vector<std::string> args = {options_.evalPath, "--serve"};
    if (options_.compileOnly) args.push_back("--compile-only");
    args.insert(args.end(), options_.extraArgs.begin(), options_.extraArgs.end());
    // argv before fork: the trainer has threads (LibTorch's, the reward jobs), so the child may only make
    // async-signal-safe calls until exec (an allocation there can wait forever on another thread's lock).
    std::vector<char *> argv;
    for (std::string &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = fork();
    if (pid < 0) throw RewardError("cudaperf-eval --serve: fork: " + std::string(strerror(errno)));
    if (pid == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      setpgid(0, 0);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    pid_ = pid;
    toChild_ = in[1];
    fromChild_ = out[0];
    // The ready line first (its devices, its protocol).
    std::string ready;
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(options_.startTimeoutSeconds));
    if (!readLine(ready, deadline) || !isReadyLine(ready)) {
      stop();
      throw RewardError("cudaperf-eval --serve did not start: " + (ready.empty() ? std::string("no ready line") : ready.substr(0, 300)));
    }
    reader_ = std::thread([this] { readLoop(); });
  }

  static bool isReadyLine(const std::string &line) {
    try {
      return serve::messageFromJson(support::parseJson(line, "cudaperf-eval --serve"), "cudaperf-eval --serve's first line")
                 .as<serve::Ready>() != nullptr;
    } catch (const std::exception &) {
      return false;
    }
  }

  // Under mutex_: the child killed and reaped, every waiting candidate failed.
  void stop() {
    if (pid_ > 0) {
      if (toChild_ >= 0) close(toChild_);
      toChild_ = -1;
      // SIGTERM first: the server then kills its workers' and builds' process groups (each its own
      // group, which a SIGKILL of the server's group would miss); SIGKILL after 3 s if it is still there.
      kill(pid_, SIGTERM);
      bool reaped = false;
      for (int i = 0; i < 60 && !reaped; ++i) {
        reaped = waitpid(pid_, nullptr, WNOHANG) == pid_;
        if (!reaped)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      kill(-pid_, SIGKILL);
      if (!reaped) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
      }
      pid_ = -1;
    }
    if (reader_.joinable()) {
      mutex_.unlock(); // the reader takes the lock to fail what is pending
      reader_.join();
      mutex_.lock();
    }
    if (fromChild_ >= 0) close(fromChild_);
    fromChild_ = -1;
    failPending("cudaperf-eval --serve ended");
    buffer_.clear();
    dead_ = false;
  }

  void failPending(const std::string &why) {
    for (auto &[id, promise] : pending_) promise.set_exception(std::make_exception_ptr(RewardError(why)));
    pending_.clear();
  }

  bool writeAll(const std::string &text) {
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = write(toChild_, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += size_t(n);
    }
    return true;
  }

  // A line from fd into `line` (without the newline); false at end of input or past the deadline.
  bool readLine(std::string &line, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return true;
      }
      int wait = -1;
      if (deadline != std::chrono::steady_clock::time_point::max()) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) return false;
        wait = int(left);
      }
      pollfd p{fromChild_, POLLIN, 0};
      int r = poll(&p, 1, wait);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      char chunk[65536];
      ssize_t n = read(fromChild_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, size_t(n));
    }
  }

  void readLoop() {
    std::string line;
    while (readLine(line, std::chrono::steady_clock::time_point::max())) {
      Json json;
      try {
        json = support::parseJson(line, "cudaperf-eval --serve");
      } catch (const std::exception &) {
        continue; // not a message (a stray print); the protocol's lines are JSON
      }
      // A line the typed reader refuses ends the request it names, with the reader's message (the
      // field it names); one that names no request of ours is passed over, as a stray line is.
      std::optional<serve::Message> message;
      std::string refused;
      try {
        message = serve::messageFromJson(json, "cudaperf-eval --serve's answer");
      } catch (const std::exception &e) {
        refused = e.what();
      }
      const Json *id = message ? (message->id ? &*message->id : nullptr) : support::member(json, "id");
      if (!id || !id->is_number_integer()) continue;
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = pending_.find(id->get<int64_t>());
      if (it == pending_.end()) continue;
      if (!message) {
        it->second.set_exception(std::make_exception_ptr(RewardError("cudaperf-eval --serve: " + refused)));
      } else if (const serve::Result *result = message->as<serve::Result>()) {
        it->second.set_value(result->result);
      } else if (message->as<serve::Error>() || message->as<serve::Cancelled>()) {
        const serve::Error *error = message->as<serve::Error>();
        std::string text = error ? error->message.value_or(error->code.value_or("")) : "";
        it->second.set_exception(
            std::make_exception_ptr(RewardError("cudaperf-eval --serve: " + message->type + ": " + text)));
      } else {
        continue; // ready, stats, pong or a type this client does not know: not an answer to a candidate
      }
      pending_.erase(it);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    failPending("cudaperf-eval --serve ended (its output closed)");
    dead_ = true; // reaped and started again by the next candidate
  }

  ServiceOptions options_;
  std::mutex mutex_;
  pid_t pid_ = -1;
  int toChild_ = -1, fromChild_ = -1;
  std::string buffer_;
  std::thread reader_;
  std::map<int64_t, std::promise<Json>> pending_;
  int64_t nextId_ = 1;
  bool dead_ = false;
};

} // namespace

std::unique_ptr<Evaluator> makeServiceEvaluator(const ServiceOptions &options) {
  return std::make_unique<ServiceEvaluator>(options);
}

} // namespace cudaperf::reward
