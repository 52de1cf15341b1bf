#include "HolderClient.h"

#include "cudaperf/Schema/Protocol.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <poll.h>
#include <unistd.h>

namespace cudaperf::runtime {

using support::Json;

HolderClient::HolderClient(std::string workerPath, std::vector<std::string> env, std::string logPath)
    : workerPath_(std::move(workerPath)), logPath_(std::move(logPath)), env_(std::move(env)) {}

HolderClient::~HolderClient() { stop(); }

void HolderClient::stop() {
  support::stopProcess(child_);
  buffered_.clear();
}

bool HolderClient::start(std::string &error) {
  support::ProcessOptions po;
  po.outputPath = logPath_;
  po.extraEnv = env_;
  child_ = support::spawnProcess({workerPath_, "--holder"}, po, true, true);
  if (!child_.running()) {
    error = "cannot start the data holder: " + child_.startError;
    return false;
  }
  ++generation_;
  std::string line;
  // Its CUDA context first (it waits while the device is full).
  if (!readLine(line, 120, error))
    return false;
  try {
    schema::holder::Answer ready = schema::holder::answerFromJson(support::parseJson(line, "holder"), "holder");
    if (!ready.as<schema::holder::Ready>()) {
      const schema::holder::Failed *failed = ready.as<schema::holder::Failed>();
      error = "the data holder could not start: " + (failed && failed->detail ? *failed->detail : line);
      stop();
      return false;
    }
  } catch (const std::exception &e) {
    error = std::string("the data holder answered: ") + e.what();
    stop();
    return false;
  }
  return true;
}

bool HolderClient::readLine(std::string &line, double timeoutSeconds, std::string &error) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  while (true) {
    size_t nl = buffered_.find('\n');
    if (nl != std::string::npos) {
      line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return true;
    }
    int left = int(std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count());
    if (left <= 0) {
      error = "the data holder did not answer within " + std::to_string(int(timeoutSeconds)) + " s";
      stop();
      return false;
    }
    pollfd p{child_.stdoutFd, POLLIN, 0};
    int r = poll(&p, 1, std::min(left, 1000));
    if (r < 0 && errno == EINTR)
      continue;
    if (r > 0) {
      char buf[65536];
      ssize_t n = read(child_.stdoutFd, buf, sizeof buf);
      if (n <= 0) {
        support::ProcessOptions po;
        po.timeoutSeconds = 1;
        support::ProcessResult pr = support::superviseProcess(child_, po);
        error = "the data holder ended (" + pr.describe() + "): " + pr.output.substr(0, 2000);
        buffered_.clear();
        return false;
      }
      buffered_.append(buf, size_t(n));
    }
  }
}

Json HolderClient::request(const Json &req, double timeoutSeconds, std::string &error) {
  error.clear();
  if (!child_.running() && !start(error))
    return Json();
  std::string line = support::writeJson(req) + "\n";
  for (size_t done = 0; done < line.size();) {
    ssize_t n = write(child_.stdinFd, line.data() + done, line.size() - done);
    if (n <= 0) {
      error = std::string("writing to the data holder: ") + strerror(errno);
      stop();
      return Json();
    }
    done += size_t(n);
  }
  std::string answer;
  if (!readLine(answer, timeoutSeconds, error))
    return Json();
  try {
    return support::parseJson(answer, "holder answer");
  } catch (const std::exception &e) {
    error = e.what();
    stop();
    return Json();
  }
}

} // namespace cudaperf::runtime
