// A test double of `cudaperf-eval --worker redis://...`: the same queue worker loop (lib/Queue)
// around an evaluator that takes --job-ms per job and needs no GPU or compiler. Its result says
// which process evaluated the job and what task files it found, so the fault tests can tell.
// With --exec PROGRAM it runs PROGRAM TASK_DIR CANDIDATE --jsonl [--exec-arg ARG]... per job instead
// (a per-candidate evaluator such as test/reward/fake-eval.py) and answers with the document it
// prints: the queue's rewards can then be compared with the local path's on the same evaluator.
#include "cudaperf/Queue/Worker.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <chrono>
#include <cstring>
#include <iostream>
#include <thread>
#include <unistd.h>

using namespace cudaperf;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

class FakeEvaluator : public queue::JobEvaluator {
public:
  explicit FakeEvaluator(double jobSeconds) : jobSeconds_(jobSeconds) {}
  void start(const support::Json &request) override { running_.push_back({now() + jobSeconds_, request}); }
  std::vector<support::Json> poll(double seconds) override {
    double until = now() + seconds;
    std::vector<support::Json> out;
    while (true) {
      for (size_t i = 0; i < running_.size();)
        if (running_[i].first <= now()) {
          out.push_back(resultOf(running_[i].second));
          running_.erase(running_.begin() + long(i));
        } else {
          ++i;
        }
      if (!out.empty() || now() >= until)
        return out;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

private:
  static support::Json resultOf(const support::Json &request) {
    std::string source = request.value("source", "");
    std::string taskDir = request.value("task_dir", "");
    std::string taskJson;
    try {
      taskJson = support::readRegularFile(taskDir + "/task.json", 1 << 20);
    } catch (const std::exception &) {
    }
    std::string outcome = taskJson.empty() ? "internal_error"
                          : source.find("FAIL") != std::string::npos ? "compile_error"
                                                                     : "ok";
    support::Json result = {{"candidate", request.value("name", "")},
                            {"outcome", outcome},
                            {"evaluated_by", getpid()},
                            {"source_sha256", support::sha256Hex(source)},
                            {"task_json_sha256", support::sha256Hex(taskJson)}};
    return {{"type", "result"}, {"id", request.at("id")}, {"outcome", outcome}, {"result", result}};
  }
  double jobSeconds_;
  std::vector<std::pair<double, support::Json>> running_;
};

// Runs a per-candidate evaluator program on each job, one at a time.
class ExecEvaluator : public queue::JobEvaluator {
public:
  ExecEvaluator(std::string program, std::vector<std::string> args, std::string workDir)
      : program_(std::move(program)), args_(std::move(args)), workDir_(std::move(workDir)) {}
  void start(const support::Json &request) override { waiting_.push_back(request); }
  std::vector<support::Json> poll(double seconds) override {
    std::vector<support::Json> out;
    if (waiting_.empty()) {
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(seconds, 0.05)));
      return out;
    }
    support::Json request = waiting_.front();
    waiting_.erase(waiting_.begin());
    support::Json id = request.at("id");
    std::string dir = workDir_ + "/job-" + std::to_string(++n_);
    std::filesystem::create_directories(dir);
    std::string file = dir + "/" + std::filesystem::path(request.value("name", "candidate.cu")).filename().string();
    std::ofstream(file) << request.value("source", "");
    std::vector<std::string> argv = {program_, request.value("task_dir", ""), file, "--jsonl"};
    argv.insert(argv.end(), args_.begin(), args_.end());
    support::ProcessOptions po;
    po.separateStderr = true;
    po.maxCapturedBytes = size_t(64) << 20;
    support::ProcessResult r = support::runProcess(argv, po);
    std::string last;
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);)
      if (line.find_first_not_of(" \t\r") != std::string::npos)
        last = line;
    try {
      out.push_back({{"type", "result"}, {"id", id}, {"result", support::parseJson(last, "evaluator output")}});
    } catch (const std::exception &e) {
      out.push_back({{"type", "error"}, {"id", id}, {"code", "internal"}, {"message", e.what()}});
    }
    std::filesystem::remove_all(dir);
    return out;
  }

private:
  std::string program_;
  std::vector<std::string> args_;
  std::string workDir_;
  std::vector<support::Json> waiting_;
  int n_ = 0;
};

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: fake-queue-worker redis://HOST:PORT/QUEUE [--job-ms N] [--name NAME] [--in-flight N]\n"
                 "       [--reclaim-after S] [--heartbeat S] [--work-dir DIR] [--exec PROGRAM [--exec-arg ARG]...]\n";
    return 2;
  }
  queue::RedisUrl url;
  try {
    url = queue::parseRedisUrl(argv[1]);
  } catch (const queue::QueueError &e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  queue::QueueConfig config;
  queue::WorkerOptions options;
  double jobMs = 0;
  std::string execProgram;
  std::vector<std::string> execArgs;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--job-ms")
      jobMs = std::stod(v);
    else if (k == "--name")
      options.consumer = v;
    else if (k == "--in-flight")
      options.inFlight = std::stoi(v);
    else if (k == "--reclaim-after")
      config.reclaimAfterSeconds = std::stod(v);
    else if (k == "--heartbeat")
      options.heartbeatSeconds = std::stod(v);
    else if (k == "--work-dir")
      options.workDir = v;
    else if (k == "--exec")
      execProgram = v;
    else if (k == "--exec-arg")
      execArgs.push_back(v);
    else {
      std::cerr << "fake-queue-worker: unknown option " << k << "\n";
      return 2;
    }
  }
  if (!execProgram.empty()) {
    std::string dir = (options.workDir.empty() ? std::filesystem::temp_directory_path().string() : options.workDir) +
                      "/exec-" + std::to_string(getpid());
    ExecEvaluator evaluator(execProgram, execArgs, dir);
    int rc = queue::runQueueWorker(url, config, evaluator, options);
    std::filesystem::remove_all(dir);
    return rc;
  }
  FakeEvaluator evaluator(jobMs / 1000);
  return queue::runQueueWorker(url, config, evaluator, options);
}
