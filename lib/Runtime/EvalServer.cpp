#include "cudaperf/Runtime/EvalServer.h"
#include "cudaperf/Runtime/ServeProtocol.h"
#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/Subprocess.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace cudaperf::runtime {

using support::Json;

namespace {

// Means of the evaluator's stages over the results delivered so far.
class StageTotals {
public:
  void add(const Json &result) {
    std::lock_guard<std::mutex> lock(mu_);
    ++results_;
    if (const Json *outcome = support::member(result, "outcome"); outcome && outcome->is_string())
      ++outcomes_[outcome->get<std::string>()];
    if (const Json *s = support::member(result, "stage_seconds"); s && s->is_object())
      for (const auto &kv : s->items())
        if (kv.value().is_number()) {
          sums_[kv.key()] += kv.value().get<double>();
          ++counts_[kv.key()];
        }
  }
  void fill(schema::serve::Stats &stats) const {
    std::lock_guard<std::mutex> lock(mu_);
    Json means = Json::object();
    for (const auto &[k, v] : sums_)
      means[k] = v / double(counts_.at(k));
    stats.results = results_;
    stats.outcomes = Json(outcomes_);
    stats.meanStageSeconds = std::move(means);
  }

private:
  mutable std::mutex mu_;
  uint64_t results_ = 0;
  std::map<std::string, uint64_t> outcomes_;
  std::map<std::string, double> sums_;
  std::map<std::string, uint64_t> counts_;
};

// One client: where its messages go (its results too, from whatever thread finishes them).
class Session {
public:
  Session(int outFd, int number) : outFd_(outFd), number_(number) {}
  void send(const Json &message) {
    std::string line = support::writeJson(message) + "\n";
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_)
      return;
    for (size_t done = 0; done < line.size();) {
      ssize_t n = write(outFd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        closed_ = true; // the client went away; its remaining results are dropped
        return;
      }
      done += size_t(n);
    }
  }
  std::string key(const std::string &idKey) const { return std::to_string(number_) + ":" + idKey; }
  // No message after this (its descriptor number may soon belong to another client).
  void close() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_ && outFd_ >= 0)
      ::close(outFd_);
    closed_ = true;
  }

private:
  std::mutex mu_;
  int outFd_;
  int number_;
  bool closed_ = false;
};

struct Server {
  Server(Evaluator &e, ServePolicy p) : evaluator(e), policy(std::move(p)) {}
  Evaluator &evaluator;
  ServePolicy policy;
  StageTotals totals;
  std::atomic<bool> shuttingDown{false};
  std::atomic<int> sessions{0};
  bool drain = true;

  schema::serve::Message stats() {
    SchedulerStats s = evaluator.stats();
    schema::serve::Stats j;
    totals.fill(j);
    j.submitted = s.submitted;
    j.finished = s.finished;
    j.cancelled = s.cancelled;
    j.waiting = s.waiting;
    j.building = s.building;
    j.running = s.running;
    j.runsPerDevice = s.runsPerDevice;
    // Finished workers' exits, which go on beside the next candidates (--wait-worker-exit: none).
    support::BackgroundReaper::Stats exits = support::backgroundReaper().stats();
    schema::serve::WorkerExits &e = j.workerExit.emplace();
    e.reaped = exits.reaped;
    e.meanSeconds = exits.reaped ? exits.totalSeconds / double(exits.reaped) : 0.0;
    e.maxSeconds = exits.maxSeconds;
    return schema::serve::Message::make(std::move(j));
  }

  Json ready() {
    Json devices = Json::array();
    for (const Json &d : evaluator.devices())
      devices.push_back(d);
    schema::serve::Ready ready;
    ready.protocol = kServeProtocol;
    ready.arch = evaluator.arch();
    ready.devices = devices;
    ready.queueLimit = int64_t(evaluator.options().queueLimit);
    ready.buildThreads = evaluator.options().jobs;
    return schema::serve::messageToJson(schema::serve::Message::make(std::move(ready)));
  }

  // One request line; false once the client asked for shutdown.
  bool handle(const std::shared_ptr<Session> &session, const std::string &line) {
    ServeParse p = parseServeRequest(line, policy);
    if (!p.request) {
      session->send(serveError(p.id, p.errorCode, p.errorMessage));
      return true;
    }
    const ServeRequest &r = *p.request;
    switch (r.op) {
    case ServeRequest::Op::Ping:
      session->send(schema::serve::messageToJson(schema::serve::Message::make(schema::serve::Pong{}, r.id)));
      return true;
    case ServeRequest::Op::Stats: {
      schema::serve::Message s = stats();
      s.id = r.id;
      session->send(schema::serve::messageToJson(s));
      return true;
    }
    case ServeRequest::Op::Cancel:
      switch (evaluator.cancel(session->key(r.idKey))) {
      case Scheduler::Cancel::Cancelled: break; // its "cancelled" message comes from the scheduler
      case Scheduler::Cancel::Running:
        session->send(serveError(r.id, "not_cancellable", "already running; its result will follow"));
        break;
      case Scheduler::Cancel::Unknown:
        session->send(serveError(r.id, "unknown_id", "no queued or running request has this id"));
        break;
      }
      return true;
    case ServeRequest::Op::Shutdown:
      drain = r.drain;
      return false;
    case ServeRequest::Op::Evaluate:
      break;
    }
    EvalJob job;
    job.taskDir = r.taskDir;
    job.candidatePath = r.candidatePath;
    job.hasSource = r.candidatePath.empty();
    job.candidateSource = r.source;
    job.candidateName = !r.name.empty() ? r.name : "request " + r.id.dump();
    job.configs = r.configs;
    job.counters = r.counters;
    Json id = r.id;
    std::weak_ptr<Session> weak = session;
    auto done = [this, weak, id](const Json &result, bool cancelled) {
      if (!cancelled)
        totals.add(result);
      if (auto s = weak.lock())
        s->send(cancelled ? serveCancelled(id) : serveResult(id, result));
    };
    // Blocks while the queue is full: this client's further lines wait (back-pressure).
    switch (evaluator.submit(session->key(r.idKey), std::move(job), done, true)) {
    case Scheduler::Submit::Accepted: break;
    case Scheduler::Submit::Duplicate:
      session->send(serveError(id, "duplicate_id", "a request with this id is still queued or running"));
      break;
    case Scheduler::Submit::Closed:
      session->send(serveError(id, "shutting_down", "the server is shutting down"));
      break;
    case Scheduler::Submit::Full:
      session->send(serveError(id, "queue_full", "the queue is full"));
      break;
    }
    return true;
  }

  // Reads request lines until EOF or shutdown; true when the client asked for shutdown.
  bool readLoop(int inFd, const std::shared_ptr<Session> &session) {
    std::string buffer;
    bool skippingLine = false;
    char chunk[65536];
    while (!shuttingDown) {
      pollfd p{inFd, POLLIN, 0};
      int r = poll(&p, 1, 200);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        continue;
      ssize_t n = read(inFd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      buffer.append(chunk, size_t(n));
      if (skippingLine) { // the rest of a line already refused as too long
        size_t nl = buffer.find('\n');
        if (nl == std::string::npos) {
          buffer.clear();
          continue;
        }
        buffer.erase(0, nl + 1);
        skippingLine = false;
      }
      for (size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
        std::string line = buffer.substr(0, nl);
        buffer.erase(0, nl + 1);
        if (line.find_first_not_of(" \t\r") == std::string::npos)
          continue;
        if (!handle(session, line))
          return true;
      }
      if (buffer.size() > kServeMaxLineBytes) { // a line larger than any source text is malformed
        session->send(serveError(nullptr, "bad_request", "a request line longer than 64 MiB"));
        buffer.clear();
        skippingLine = true;
      }
    }
    return false;
  }

  void finish(const std::shared_ptr<Session> &session) {
    shuttingDown = true;
    evaluator.close(drain);
    evaluator.wait();
    // The last candidates' workers may still be ending in the background (killed, each group gone):
    // wait for them so the bye's worker_exit figures count every run. The slots' destructors wait
    // for them anyway before the program ends; on the H200 the last exit outlived the bye (GPU test).
    support::backgroundReaper().drain();
    schema::serve::Message bye = stats();
    bye.type = "bye";
    session->send(schema::serve::messageToJson(bye));
  }
};

} // namespace

int serveStream(Evaluator &evaluator, int inFd, int outFd, const ServePolicy &policy) {
  Server server(evaluator, policy);
  auto session = std::make_shared<Session>(outFd, 0);
  session->send(server.ready());
  server.readLoop(inFd, session); // EOF and shutdown both end it
  server.finish(session);
  return 0;
}

int serveSocket(Evaluator &evaluator, const std::string &path, const ServePolicy &policy) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) {
    std::cerr << "cudaperf-eval: socket path too long: " << path << "\n";
    return 1;
  }
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode))
    unlink(path.c_str()); // left by an earlier server
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
      listen(listener, 16) != 0) {
    std::cerr << "cudaperf-eval: cannot listen on " << path << ": " << strerror(errno) << "\n";
    if (listener >= 0)
      close(listener);
    return 1;
  }
  std::cerr << "cudaperf-eval: serving on " << path << "\n";
  Server server(evaluator, policy);
  std::vector<std::thread> readers;
  std::mutex mu;
  std::shared_ptr<Session> closer;
  int next = 0;
  while (!server.shuttingDown) {
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0)
      continue;
    int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0)
      continue;
    auto session = std::make_shared<Session>(fd, ++next);
    session->send(server.ready());
    readers.emplace_back([&, fd, session] {
      if (server.readLoop(fd, session)) {
        std::lock_guard<std::mutex> lock(mu);
        if (!closer)
          closer = session;
        server.shuttingDown = true;
      }
      if (session != closer)
        session->close(); // this client is done; the others go on
    });
  }
  close(listener);
  unlink(path.c_str());
  for (auto &t : readers)
    t.join();
  server.finish(closer ? closer : std::make_shared<Session>(-1, 0));
  return 0;
}

} // namespace cudaperf::runtime
