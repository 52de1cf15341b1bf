// The queue modes of cudaperf-eval. The worker feeds jobs to the `--serve` server through a pipe
// pair, so a job is evaluated by exactly the code that evaluates a `--serve` request.
#include "QueueModes.h"

#include "cudaperf/Runtime/EvalServer.h"
#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/Json.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <poll.h>
#include <sstream>
#include <thread>
#include <unistd.h>

#ifdef CUDAPERF_HAVE_QUEUE
#include "cudaperf/Queue/Worker.h"
#endif

namespace cudaperf::evaltool {

using support::Json;

void takeWorkerOption(const std::string &value, QueueCommand &q, std::string &workerPath) {
  if (value.rfind("redis:", 0) == 0)
    q.workerUrl = value;
  else
    workerPath = value;
}

void addQueueOptions(support::ArgParser &p, QueueCommand &q) {
  using support::parseInteger;
  using support::parseNumber;
  p.option("--submit", "redis://HOST:PORT/QUEUE",
           "submit the --batch FILE's candidates to the queue and wait for their results\n"
           "(FILE: \"TASK_DIR CANDIDATE.cu\" lines or --serve requests as JSON lines)",
           q.submitUrl)
      .option("--queue-status", "redis://HOST:PORT/QUEUE", "print the queue's length and each worker's heartbeat",
              q.statusUrl)
      .option("--worker-name", "NAME", "with --worker redis://: this worker's name (default HOSTNAME-PID)",
              q.workerName)
      .option("--queue-in-flight", "N", "with --worker redis://: jobs held at once (default --jobs + 1)",
              [&](const std::string &v) { q.inFlight = int(parseInteger(v, 1, 4096)); })
      .option("--queue-work-dir", "DIR", "with --worker redis://: where task files are unpacked", q.workDir)
      .option("--queue-heartbeat", "S", "heartbeat and job renewal period (default 2)",
              [&](const std::string &v) { q.heartbeatSeconds = parseNumber(v, 0.05, 3600); })
      .option("--queue-reclaim-after", "S",
              "a job not renewed for S seconds (its worker died) is run by another (default 60)",
              [&](const std::string &v) { q.reclaimAfterSeconds = parseNumber(v, 0.1, 86400); })
      .option("--queue-max", "N", "with --submit: jobs in the queue before submitting waits (default 1000)",
              [&](const std::string &v) { q.maxOutstanding = long(parseInteger(v, 1, 10000000)); })
      .option("--queue-result-ttl", "S", "results kept this long when not fetched (default 86400)",
              [&](const std::string &v) { q.resultTtlSeconds = long(parseInteger(v, 1, 100000000)); })
      .option("--queue-wait", "S", "with --submit: give up after S seconds (default 3600)",
              [&](const std::string &v) { q.waitSeconds = parseNumber(v, 0, 1e9); })
      .flag("--share-task-paths",
            "with --submit: send task directories as paths (workers read them under their --task-root)\n"
            "instead of their files",
            q.shareTaskPaths);
}

#ifdef CUDAPERF_HAVE_QUEUE

namespace {

void writeAll(int fd, const std::string &text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw queue::EvaluatorStopped("the evaluator stopped taking requests");
    done += size_t(n);
  }
}

// serveStream on its own thread, spoken to through two pipes.
class ServeEvaluator : public queue::JobEvaluator {
public:
  ServeEvaluator(runtime::Evaluator &evaluator, const runtime::ServePolicy &policy) {
    if (pipe(toServer_) != 0 || pipe(fromServer_) != 0)
      throw queue::QueueError("cannot create pipes");
    thread_ = std::thread([this, &evaluator, policy] {
      runtime::serveStream(evaluator, toServer_[0], fromServer_[1], policy);
      close(fromServer_[1]);
    });
  }
  ~ServeEvaluator() override {
    try {
      schema::serve::Request shutdown;
      shutdown.op = schema::serve::Request::Op::Shutdown;
      shutdown.drain = false;
      writeAll(toServer_[1], support::writeJson(schema::serve::requestToJson(shutdown)) + "\n");
    } catch (...) {
    }
    close(toServer_[1]);
    thread_.join();
  }
  void start(const Json &request) override { writeAll(toServer_[1], support::writeJson(request) + "\n"); }
  std::vector<Json> poll(double seconds) override {
    std::vector<Json> out;
    pollfd p{fromServer_[0], POLLIN, 0};
    if (::poll(&p, 1, int(seconds * 1000)) > 0) {
      char buf[65536];
      ssize_t n = read(fromServer_[0], buf, sizeof buf);
      if (n <= 0)
        throw queue::EvaluatorStopped("the evaluator stopped");
      buffer_.append(buf, size_t(n));
    }
    size_t nl;
    while ((nl = buffer_.find('\n')) != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      Json m = support::parseJson(line, "serve message");
      // A job ends with its result, an error or its cancellation; ready, stats and pong lines
      // answer no job.
      namespace serve = schema::serve;
      serve::Message message = serve::messageFromJson(m, "serve message");
      if (message.as<serve::Result>() || message.as<serve::Error>() || message.as<serve::Cancelled>())
        out.push_back(std::move(m));
    }
    return out;
  }

private:
  int toServer_[2] = {-1, -1}, fromServer_[2] = {-1, -1};
  std::thread thread_;
  std::string buffer_;
};

queue::QueueConfig configOf(const QueueCommand &q) {
  queue::QueueConfig c;
  c.maxOutstanding = q.maxOutstanding;
  c.reclaimAfterSeconds = q.reclaimAfterSeconds;
  c.resultTtlSeconds = q.resultTtlSeconds;
  return c;
}

bool parseUrl(const std::string &text, queue::RedisUrl &url) {
  try {
    url = queue::parseRedisUrl(text);
    return true;
  } catch (const queue::QueueError &e) {
    std::cerr << "cudaperf-eval: " << e.what() << "\n";
    return false;
  }
}

} // namespace

bool checkQueueUrls(const QueueCommand &q) {
  queue::RedisUrl url;
  for (const std::string *u : {&q.workerUrl, &q.submitUrl, &q.statusUrl})
    if (!u->empty() && !parseUrl(*u, url))
      return false;
  return true;
}

int runQueueWorkerMode(const QueueCommand &q, runtime::Evaluator &evaluator, const runtime::ServePolicy &policy) {
  queue::RedisUrl url;
  if (!parseUrl(q.workerUrl, url))
    return 2;
  queue::WorkerOptions w;
  w.consumer = q.workerName;
  w.inFlight = q.inFlight > 0 ? q.inFlight : evaluator.options().jobs + 1;
  // More than the server's queue would block the hand-over (the server stops reading).
  w.inFlight = std::min(w.inFlight, int(std::max<size_t>(1, evaluator.options().queueLimit)));
  w.heartbeatSeconds = q.heartbeatSeconds;
  w.workDir = q.workDir;
  w.taskRoot = policy.taskRoot;
  // Task directories are the worker's own (unpacked jobs) or checked against --task-root by the
  // queue worker; candidate paths follow --candidate-root as with --serve.
  runtime::ServePolicy servePolicy = policy;
  servePolicy.taskRoot.clear();
  ServeEvaluator serve(evaluator, servePolicy);
  return queue::runQueueWorker(url, configOf(q), serve, w);
}

int runSubmitMode(const QueueCommand &q, const std::string &batchFile, const runtime::EvalOptions &opt,
                  const std::string &outputPath) {
  queue::RedisUrl url;
  if (!parseUrl(q.submitUrl, url))
    return 2;
  if (batchFile.empty()) {
    std::cerr << "cudaperf-eval: --submit needs --batch FILE\n";
    return 2;
  }
  std::ifstream in(batchFile);
  if (!in) {
    std::cerr << "cudaperf-eval: cannot read " << batchFile << "\n";
    return 2;
  }
  std::vector<Json> requests;
  std::string line;
  int lineNo = 0;
  try {
    while (std::getline(in, line)) {
      ++lineNo;
      size_t first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#')
        continue;
      Json r;
      if (line[first] == '{') {
        r = support::parseJson(line, batchFile + ":" + std::to_string(lineNo));
        if (!r.is_object())
          throw support::SupportError(batchFile + ":" + std::to_string(lineNo) + ": expected a JSON object");
      } else {
        std::stringstream ss(line);
        std::string taskDir, candidate;
        if (!(ss >> taskDir >> candidate))
          throw support::SupportError(batchFile + ":" + std::to_string(lineNo) +
                                      ": expected \"TASK_DIR CANDIDATE.cu\" or a JSON request");
        schema::serve::Request evaluate;
        evaluate.id = lineNo;
        evaluate.taskDir = taskDir;
        evaluate.candidatePath = candidate;
        r = schema::serve::requestToJson(evaluate);
      }
      if (!opt.configs.empty() && !r.contains("configs"))
        r["configs"] = opt.configs;
      if (opt.counters && !r.contains("counters"))
        r["counters"] = true;
      requests.push_back(std::move(r));
    }
  } catch (const std::exception &e) {
    std::cerr << "cudaperf-eval: " << e.what() << "\n";
    return 2;
  }
  std::ofstream file;
  if (!outputPath.empty()) {
    file.open(outputPath, std::ios::trunc);
    if (!file) {
      std::cerr << "cudaperf-eval: cannot write " << outputPath << "\n";
      return 2;
    }
  }
  std::ostream &out = outputPath.empty() ? std::cout : file;
  queue::SubmitOptions so;
  so.shareTaskPaths = q.shareTaskPaths;
  so.timeoutSeconds = q.waitSeconds;
  queue::SubmitStats stats;
  int rc = queue::submitAndWait(url, configOf(q), requests, so,
                                [&](const Json &m) { out << support::writeJson(m) << "\n" << std::flush; }, stats);
  std::cerr << "cudaperf-eval --submit: " << stats.submitted << " requests (" << stats.unique << " distinct), "
            << stats.results << " results in " << stats.seconds << " s; queue full " << stats.fullWaits
            << " times, longest queue " << stats.maxLength << ", ignored " << stats.ignored << "\n";
  return rc;
}

int runQueueStatusMode(const QueueCommand &q) {
  queue::RedisUrl url;
  if (!parseUrl(q.statusUrl, url))
    return 2;
  return queue::printQueueStatus(url, std::cout);
}

#else

namespace {
int unavailable() {
  std::cerr << "cudaperf-eval: built without hiredis (libhiredis-dev): the Redis queue is not available\n";
  return 1;
}
} // namespace
int runQueueWorkerMode(const QueueCommand &, runtime::Evaluator &, const runtime::ServePolicy &) { return unavailable(); }
int runSubmitMode(const QueueCommand &, const std::string &, const runtime::EvalOptions &, const std::string &) {
  return unavailable();
}
int runQueueStatusMode(const QueueCommand &) { return unavailable(); }
bool checkQueueUrls(const QueueCommand &) { return true; }

#endif

} // namespace cudaperf::evaltool
