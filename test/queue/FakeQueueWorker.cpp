// A test double of `cudaperf-eval --worker redis://...`: the same queue worker loop (lib/Queue)
// around an evaluator that takes --job-ms per job and needs no GPU or compiler. Its result says
// which process evaluated the job and what task files it found, so the fault tests can tell.
#include "cudaperf/Queue/Worker.h"
#include "cudaperf/Support/Sha256.h"

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

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: fake-queue-worker redis://HOST:PORT/QUEUE [--job-ms N] [--name NAME] [--in-flight N]\n"
                 "       [--reclaim-after S] [--heartbeat S]\n";
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
    else {
      std::cerr << "fake-queue-worker: unknown option " << k << "\n";
      return 2;
    }
  }
  FakeEvaluator evaluator(jobMs / 1000);
  return queue::runQueueWorker(url, config, evaluator, options);
}
