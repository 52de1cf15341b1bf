#include "cudaperf/Reward/Server.h"
#include "cudaperf/Reward/Requests.h"
#include "cudaperf/Reward/RewardError.h"
#include "cudaperf/Support/JsonReader.h"
#include "cudaperf/Support/Json.h"

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <sstream>
#include <sys/random.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace cudaperf::reward {

using support::Json;
using Clock = std::chrono::steady_clock;

namespace {

std::string randomBatchId(); // 128 bits from getrandom, hex

struct Batch {
  std::string id;
  int owner = -1; // the index of the token that created it (-1: the service has no tokens)
  size_t size = 0;
  std::vector<Json> records; // completion order
  Clock::time_point finishedAt;
  bool complete() const { return records.size() == size; }
};

// The bounded queue and its workers; every handler goes through it.
class Service {
public:
  Service(RewardPipeline &pipeline, const ServerOptions &options) : pipeline_(pipeline), options_(options) {
    for (int i = 0; i < std::max(1, options.jobs); ++i)
      workers_.emplace_back([this] { work(); });
  }

  ~Service() {
    stop();
    for (std::thread &t : workers_)
      t.join();
  }

  // Workers finish the request they are in and take no other; waiting clients are let go.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stopping_ = true;
    }
    workCv_.notify_all();
    doneCv_.notify_all();
  }

  bool stopping() {
    std::lock_guard<std::mutex> lock(m_);
    return stopping_;
  }

  // nullptr when the batch does not fit in the queue.
  std::shared_ptr<Batch> submit(std::vector<RewardRequest> requests, int owner) {
    std::lock_guard<std::mutex> lock(m_);
    expire();
    if (queue_.size() + requests.size() > size_t(options_.queueLimit))
      return nullptr;
    evictFinished(size_t(std::max(1, options_.maxBatches)) - 1);
    auto batch = std::make_shared<Batch>();
    batch->id = randomBatchId();
    batch->owner = owner;
    batch->size = requests.size();
    for (RewardRequest &r : requests)
      queue_.emplace_back(batch, std::move(r));
    batches_[batch->id] = batch;
    std::cerr << "[cudaperf-reward] batch " << batch->id << ": " << batch->size << " request(s) queued ("
              << queue_.size() << " of " << options_.queueLimit << " waiting, " << running_ << " running)"
              << std::endl;
    workCv_.notify_all();
    return batch;
  }

  // Another client's batch is not found either (its existence is not told).
  std::shared_ptr<Batch> find(const std::string &id, int client) {
    std::lock_guard<std::mutex> lock(m_);
    expire();
    auto it = batches_.find(id);
    return it == batches_.end() || it->second->owner != client ? nullptr : it->second;
  }

  // Waits until the batch has more than `seen` records, is complete, or `until` passes; returns a
  // copy of its records from `seen` on.
  std::vector<Json> waitForRecords(const Batch &b, size_t seen, Clock::time_point until) {
    std::unique_lock<std::mutex> lock(m_);
    doneCv_.wait_until(lock, until, [&] { return stopping_ || b.records.size() > seen || b.complete(); });
    return std::vector<Json>(b.records.begin() + std::min(seen, b.records.size()), b.records.end());
  }

  bool waitComplete(const Batch &b, Clock::time_point until) {
    std::unique_lock<std::mutex> lock(m_);
    doneCv_.wait_until(lock, until, [&] { return stopping_ || b.complete(); });
    return b.complete();
  }

  Json snapshot(const Batch &b) {
    std::lock_guard<std::mutex> lock(m_);
    return Json::object({{"batch_id", b.id},
                         {"size", b.size},
                         {"done", b.records.size()},
                         {"complete", b.complete()},
                         {"results", b.records}});
  }

  // Requests of the batch not yet started get a "cancelled" record.
  size_t cancel(Batch &b) {
    std::lock_guard<std::mutex> lock(m_);
    size_t n = 0;
    for (auto it = queue_.begin(); it != queue_.end();)
      if (it->first.get() == &b) {
        b.records.push_back(errorRecord(it->second.id, 409, "cancelled before it started"));
        it = queue_.erase(it);
        ++n;
      } else {
        ++it;
      }
    if (b.complete())
      finish(b);
    doneCv_.notify_all();
    return n;
  }

  Json health() {
    std::lock_guard<std::mutex> lock(m_);
    return Json::object({{"status", "ok"},
                         {"waiting", queue_.size()},
                         {"running", running_},
                         {"queue_limit", options_.queueLimit},
                         {"workers", workers_.size()},
                         {"batches", batches_.size()},
                         {"served", served_},
                         {"pipeline", pipeline_.describe()}});
  }

private:
  void work() {
    for (;;) {
      std::pair<std::shared_ptr<Batch>, RewardRequest> item;
      {
        std::unique_lock<std::mutex> lock(m_);
        workCv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_)
          return;
        item = std::move(queue_.front());
        queue_.pop_front();
        ++running_;
      }
      Json record = serveRewardRequest(pipeline_, item.second, options_.withResults); // never throws
      {
        std::lock_guard<std::mutex> lock(m_);
        --running_;
        ++served_;
        item.first->records.push_back(std::move(record));
        if (item.first->complete()) {
          finish(*item.first);
          std::cerr << "[cudaperf-reward] batch " << item.first->id << ": done (" << item.first->size
                    << " record(s))" << std::endl;
        }
      }
      doneCv_.notify_all();
    }
  }

  // Caller holds m_.
  void finish(Batch &b) {
    b.finishedAt = Clock::now();
    finished_.push_back(b.id);
  }

  // At most `keep` batches stay known: the ones finished longest ago go first (their clients
  // then get 404). Unfinished ones are never dropped; the queue's limit bounds them. Caller holds m_.
  void evictFinished(size_t keep) {
    while (batches_.size() > keep && !finished_.empty()) {
      batches_.erase(finished_.front());
      finished_.pop_front();
    }
  }

  // Finished batches are kept keepSeconds for polling. Caller holds m_.
  void expire() {
    Clock::time_point now = Clock::now();
    for (auto it = batches_.begin(); it != batches_.end();)
      if (it->second->complete() && now - it->second->finishedAt > std::chrono::seconds(options_.keepSeconds))
        it = batches_.erase(it);
      else
        ++it;
    while (!finished_.empty() && !batches_.count(finished_.front()))
      finished_.pop_front();
  }

  RewardPipeline &pipeline_;
  const ServerOptions &options_;
  std::mutex m_;
  std::condition_variable workCv_, doneCv_;
  std::deque<std::pair<std::shared_ptr<Batch>, RewardRequest>> queue_;
  std::map<std::string, std::shared_ptr<Batch>> batches_;
  std::deque<std::string> finished_; // ids of finished batches, oldest first (some may be gone)
  std::vector<std::thread> workers_;
  size_t running_ = 0, served_ = 0;
  bool stopping_ = false;
};

// The client of the request being served on this thread (httplib serves a connection on one thread):
// the index of its token, -1 without tokens.
thread_local int tlsClient = -1;
// Set on the threads started for connections beyond the pool: they answer 503 (health excepted).
thread_local bool tlsOverflow = false;

// The pool of connection threads with admission: a connection that finds every worker busy (held by
// a long request, a stream, or a slow client) gets a thread of its own that answers 503 with
// Retry-After at once (or /v1/health), instead of waiting behind them or being reset.
class AdmissionQueue : public httplib::TaskQueue {
public:
  AdmissionQueue(size_t workers, size_t overflowLimit) : state_(std::make_shared<State>()) {
    state_->workers = workers;
    state_->overflowLimit = overflowLimit;
    for (size_t i = 0; i < workers; ++i)
      threads_.emplace_back([s = state_] {
        for (;;) {
          std::function<void()> fn;
          {
            std::unique_lock<std::mutex> lock(s->m);
            s->cv.wait(lock, [&] { return s->stop || !s->queue.empty(); });
            if (s->queue.empty())
              return;
            fn = std::move(s->queue.front());
            s->queue.pop_front();
          }
          fn();
          std::lock_guard<std::mutex> lock(s->m);
          --s->busy;
        }
      });
  }
  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard<std::mutex> lock(state_->m);
      if (state_->busy < state_->workers || state_->overflow >= state_->overflowLimit) {
        ++state_->busy;
        state_->queue.push_back(std::move(fn));
        state_->cv.notify_one();
        return;
      }
      ++state_->overflow;
    }
    std::thread([s = state_, fn = std::move(fn)] {
      tlsOverflow = true;
      fn();
      std::lock_guard<std::mutex> lock(s->m);
      --s->overflow;
    }).detach(); // holds the state, not this queue
  }
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(state_->m);
      state_->stop = true;
    }
    state_->cv.notify_all();
    for (std::thread &t : threads_)
      t.join();
  }

private:
  struct State {
    std::mutex m;
    std::condition_variable cv;
    std::deque<std::function<void()>> queue;
    size_t workers = 0, busy = 0, overflow = 0, overflowLimit = 0;
    bool stop = false;
  };
  std::shared_ptr<State> state_;
  std::vector<std::thread> threads_;
};

// A connection's socket with deadlines over whole phases, not only per read: httplib's read timeout
// restarts with every byte, so a client sending one header byte a second held a thread until its
// 8 KB of headers. Here a request's line and headers must arrive within `headerSeconds` of its first
// byte, and its body within `bodySeconds` after them; past either the connection is closed.
class DeadlineStream : public httplib::Stream {
public:
  DeadlineStream(int sock, int readSeconds, int writeSeconds) : sock_(sock), readMs_(readSeconds * 1000),
                                                                writeMs_(writeSeconds * 1000) {}

  void startPhase(double seconds) {
    phaseEnd_ = Clock::now() + std::chrono::milliseconds(int64_t(seconds * 1000));
  }
  bool expired() const { return expired_; }

  bool is_readable() const override { return begin_ < end_ || waitFor(POLLIN, readMs_); }
  bool is_writable() const override {
    if (!waitFor(POLLOUT, writeMs_))
      return false;
    char c;
    return !(waitFor(POLLIN, 0) && recv(sock_, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0); // not closed by the peer
  }

  ssize_t read(char *ptr, size_t size) override {
    if (begin_ == end_) {
      if (!waitFor(POLLIN, readMs_))
        return -1;
      ssize_t n;
      do
        n = recv(sock_, buffer_, sizeof buffer_, 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0)
        return n;
      begin_ = 0;
      end_ = size_t(n);
    }
    size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_ + begin_, n);
    begin_ += n;
    return ssize_t(n);
  }

  ssize_t write(const char *ptr, size_t size) override {
    if (!waitFor(POLLOUT, writeMs_))
      return -1;
    ssize_t n;
    do
      n = send(sock_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string &ip, int &port) const override { address(getpeername, ip, port); }
  void get_local_ip_and_port(std::string &ip, int &port) const override { address(getsockname, ip, port); }
  socket_t socket() const override { return sock_; }

private:
  // Polls for `events` up to `ms`, and never past the phase's end (then marks the stream expired).
  bool waitFor(short events, int ms) const {
    Clock::time_point until = Clock::now() + std::chrono::milliseconds(ms);
    if (events == POLLIN && phaseEnd_ < until)
      until = phaseEnd_;
    for (;;) {
      int64_t left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
      pollfd p{sock_, events, 0};
      int r = poll(&p, 1, int(std::max<int64_t>(0, left)));
      if (r > 0)
        return true;
      if (r < 0 && errno == EINTR)
        continue;
      if (events == POLLIN && Clock::now() >= phaseEnd_)
        expired_ = true;
      return false;
    }
  }

  void address(int (*get)(int, sockaddr *, socklen_t *), std::string &ip, int &port) const {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    char host[NI_MAXHOST] = "", serv[NI_MAXSERV] = "";
    if (get(sock_, reinterpret_cast<sockaddr *>(&addr), &len) == 0 &&
        getnameinfo(reinterpret_cast<sockaddr *>(&addr), len, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
      ip = host;
      port = std::atoi(serv);
    }
  }

  int sock_;
  int readMs_, writeMs_;
  Clock::time_point phaseEnd_ = Clock::time_point::max();
  mutable bool expired_ = false;
  char buffer_[4096];
  size_t begin_ = 0, end_ = 0;
};

// httplib's server with its connection loop replaced by one over a DeadlineStream (keep-alive as
// httplib's: up to keep_alive_max_count requests, each awaited keep_alive_timeout).
class DeadlineServer : public httplib::Server {
public:
  DeadlineServer(const ServerOptions &options) : options_(options) {}

private:
  bool process_and_close_socket(socket_t sock) override {
    DeadlineStream strm(sock, options_.readTimeoutSeconds, options_.readTimeoutSeconds);
    bool ok = false;
    for (size_t left = keep_alive_max_count_; left > 0 && is_running(); --left) {
      if (!awaitRequest(sock))
        break;
      strm.startPhase(options_.headerTimeoutSeconds);
      bool closed = false;
      ok = process_request(strm, left == 1 || !is_running(), closed,
                           [&](httplib::Request &) { strm.startPhase(options_.bodyTimeoutSeconds); });
      if (!ok || closed || strm.expired())
        break;
    }
    lingeringClose(sock);
    return ok;
  }

  // The write side is shut first, then what the client still sends is read and dropped (at most
  // 1 s and 1 MiB) before the socket is closed: closing with unread input makes the kernel send a
  // reset, which can reach the client before the response it was sent (a 503 or 411 answered
  // before the request's body was read arrived as "connection reset by peer").
  static void lingeringClose(socket_t sock) {
    shutdown(sock, SHUT_WR);
    Clock::time_point until = Clock::now() + std::chrono::seconds(1);
    size_t drained = 0;
    char buf[16384];
    while (drained < (size_t(1) << 20)) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
      if (left <= 0)
        break;
      pollfd p{sock, POLLIN, 0};
      int r = poll(&p, 1, int(left));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      ssize_t n = recv(sock, buf, sizeof buf, 0);
      if (n <= 0)
        break;
      drained += size_t(n);
    }
    close(sock);
  }

  // The next request's first byte, within the keep-alive time; a stopping server stops waiting.
  bool awaitRequest(socket_t sock) {
    Clock::time_point until = Clock::now() + std::chrono::seconds(keep_alive_timeout_sec_);
    while (is_running()) {
      pollfd p{sock, POLLIN, 0};
      int r = poll(&p, 1, 100);
      if (r > 0)
        return true;
      if ((r < 0 && errno != EINTR) || Clock::now() >= until)
        return false;
    }
    return false;
  }

  const ServerOptions &options_;
};

void reply(httplib::Response &res, int status, const Json &body) {
  res.status = status;
  res.set_content(support::writeJson(body) + "\n", "application/json");
}

void replyError(httplib::Response &res, int status, const std::string &message) {
  reply(res, status, Json::object({{"error", message}}));
}

// The body as a JSON object, or a 400 already written.
std::optional<Json> jsonBody(const httplib::Request &req, httplib::Response &res, const ServerOptions &options) {
  try {
    support::JsonLimits limits; // checked while parsing: no tree is built past them
    limits.maxDepth = options.maxJsonDepth;
    limits.maxValues = options.maxJsonValues;
    Json j = support::parseJson(req.body, "request body", limits);
    if (!j.is_object()) {
      replyError(res, 400, "request body: expected a JSON object");
      return std::nullopt;
    }
    return j;
  } catch (const support::SupportError &e) {
    replyError(res, 400, e.what());
    return std::nullopt;
  }
}

void streamRecords(Service &service, std::shared_ptr<Batch> batch, httplib::Response &res) {
  auto sent = std::make_shared<size_t>(0);
  res.set_header("X-Batch-Id", batch->id);
  res.set_chunked_content_provider(
      "application/x-ndjson", [&service, batch, sent](size_t, httplib::DataSink &sink) {
        for (;;) {
          std::vector<Json> more = service.waitForRecords(*batch, *sent, Clock::now() + std::chrono::seconds(1));
          for (const Json &r : more) {
            std::string line = support::writeJson(r) + "\n";
            if (!sink.write(line.data(), line.size()))
              return false; // the client went away; the batch goes on (pollable)
            ++*sent;
          }
          if (*sent >= batch->size) {
            sink.done();
            return true;
          }
          if (!more.empty())
            return true; // let httplib flush; it calls back for the rest
          if ((sink.is_writable && !sink.is_writable()) || service.stopping())
            return false;
        }
      });
}

// SIGINT/SIGTERM stop the server from a thread of ours, not from a signal handler.
void stopOnSignals(httplib::Server &server, Service &service, sigset_t signals) {
  std::thread([&server, &service, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    std::cerr << "[cudaperf-reward] signal " << sig << ": stopping" << std::endl;
    service.stop();
    server.stop();
  }).detach();
}

std::string randomBatchId() {
  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw RewardError("getrandom failed: no unguessable batch id");
    got += size_t(n);
  }
  static const char *hex = "0123456789abcdef";
  std::string id;
  for (unsigned char b : bytes) {
    id += hex[b >> 4];
    id += hex[b & 15];
  }
  return id;
}

std::vector<std::string> readTokens(const std::string &path) {
  std::vector<std::string> tokens;
  if (path.empty())
    return tokens;
  std::istringstream in(support::readRegularFile(path, 1 << 20));
  for (std::string line; std::getline(in, line);) {
    size_t a = line.find_first_not_of(" \t\r"), b = line.find_last_not_of(" \t\r");
    if (a == std::string::npos || line[a] == '#')
      continue;
    std::string token = line.substr(a, b - a + 1);
    if (token.size() < 16)
      throw RewardError(path + ": a token shorter than 16 characters");
    tokens.push_back(token);
  }
  if (tokens.empty())
    throw RewardError(path + ": no token in the file");
  return tokens;
}

// The index of the token `header` ("Bearer TOKEN") carries, or -1. Every token is compared in full,
// in time that depends on their lengths only, not on where a guess first differs.
int matchToken(const std::vector<std::string> &tokens, const std::string &header) {
  const std::string prefix = "Bearer ";
  std::string given = header.compare(0, prefix.size(), prefix) == 0 ? header.substr(prefix.size()) : "";
  int found = -1;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string &t = tokens[i];
    unsigned char diff = given.size() == t.size() ? 0 : 1;
    for (size_t k = 0; k < t.size(); ++k)
      diff |= (unsigned char)(t[k] ^ (k < given.size() ? given[k] : 0));
    if (diff == 0)
      found = int(i);
  }
  return found;
}

} // namespace

int runServer(RewardPipeline &pipeline, const ServerOptions &options) {
  // Block the signals before any thread starts, so every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  std::vector<std::string> tokens = readTokens(options.tokenFile); // before any thread: a bad file ends here
  DeadlineServer server(options);
  // Streaming clients hold a connection thread each: more threads than httplib's default of 8; past
  // them a connection gets a thread of its own that answers 503 (AdmissionQueue).
  server.new_task_queue = [&options] {
    return new AdmissionQueue(size_t(std::max(1, options.httpThreads)), size_t(std::max(1, options.overflowThreads)));
  };
  server.set_payload_max_length(options.maxBodyBytes);
  server.set_read_timeout(options.readTimeoutSeconds, 0);
  server.set_write_timeout(options.readTimeoutSeconds, 0);
  server.set_keep_alive_timeout(options.readTimeoutSeconds);
  server.set_keep_alive_max_count(100);
  server.set_pre_routing_handler([&](const httplib::Request &req, httplib::Response &res) {
    tlsClient = -1;
    if (!tokens.empty()) {
      int client = matchToken(tokens, req.get_header_value("Authorization"));
      if (client < 0) {
        res.set_header("WWW-Authenticate", "Bearer");
        replyError(res, 401, "a bearer token is required (Authorization: Bearer TOKEN)");
        return httplib::Server::HandlerResponse::Handled;
      }
      tlsClient = client;
    }
    if (tlsOverflow && req.path != "/v1/health") {
      res.set_header("Retry-After", std::to_string(options.retryAfterSeconds));
      res.set_header("Connection", "close");
      replyError(res, 503, "every connection thread is busy: retry later");
      return httplib::Server::HandlerResponse::Handled;
    }
    // Checked before the body is read: httplib's cap does not count a chunked body.
    if (req.has_header("Transfer-Encoding")) {
      res.set_header("Connection", "close");
      replyError(res, 411, "a request body must come with Content-Length (chunked bodies are refused)");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  auto service = std::make_unique<Service>(pipeline, options);
  Service &svc = *service;

  server.Get("/v1/health", [&](const httplib::Request &, httplib::Response &res) { reply(res, 200, svc.health()); });

  server.Post("/v1/batches", [&](const httplib::Request &req, httplib::Response &res) {
    std::optional<Json> body = jsonBody(req, res, options);
    if (!body)
      return;
    std::vector<RewardRequest> requests;
    bool stream = false;
    try {
      support::JsonField f(*body, "request body");
      for (const auto &[key, value] : f.members())
        if (key != "requests" && key != "stream")
          value.fail("unknown key (a batch has: requests, stream)");
      stream = f.optionalBoolean("stream").value_or(false);
      std::vector<support::JsonField> list = f.require("requests").elements();
      if (list.empty())
        f.require("requests").fail("expected at least one request");
      for (size_t i = 0; i < list.size(); ++i) {
        RewardRequest r = parseRewardRequest(list[i].json(), "requests[" + std::to_string(i) + "]", options.requests);
        if (r.id.is_null())
          r.id = i;
        requests.push_back(std::move(r));
      }
    } catch (const std::exception &e) {
      replyError(res, 400, e.what());
      return;
    }
    if (requests.size() > size_t(options.queueLimit)) {
      replyError(res, 413, "a batch of " + std::to_string(requests.size()) + " requests can never fit the queue of " +
                               std::to_string(options.queueLimit) + ": split it");
      return;
    }
    std::shared_ptr<Batch> batch = svc.submit(std::move(requests), tlsClient);
    if (!batch) {
      res.set_header("Retry-After", std::to_string(options.retryAfterSeconds));
      replyError(res, 503, "the queue is full: retry later");
      return;
    }
    if (stream)
      streamRecords(svc, batch, res);
    else
      reply(res, 202, Json::object({{"batch_id", batch->id}, {"size", batch->size},
                                    {"poll", "/v1/batches/" + batch->id}}));
  });

  server.Get(R"(/v1/batches/([A-Za-z0-9]+))", [&](const httplib::Request &req, httplib::Response &res) {
    std::shared_ptr<Batch> batch = svc.find(req.matches[1], tlsClient);
    if (!batch)
      return replyError(res, 404, "no batch " + std::string(req.matches[1]) + " (unknown, or expired)");
    if (req.has_param("wait")) {
      double wait = 0;
      try {
        wait = std::min(60.0, std::max(0.0, std::stod(req.get_param_value("wait"))));
      } catch (const std::exception &) {
        return replyError(res, 400, "wait: expected seconds, got '" + req.get_param_value("wait") + "'");
      }
      svc.waitComplete(*batch, Clock::now() + std::chrono::milliseconds(int64_t(wait * 1000)));
    }
    reply(res, 200, svc.snapshot(*batch));
  });

  server.Delete(R"(/v1/batches/([A-Za-z0-9]+))", [&](const httplib::Request &req, httplib::Response &res) {
    std::shared_ptr<Batch> batch = svc.find(req.matches[1], tlsClient);
    if (!batch)
      return replyError(res, 404, "no batch " + std::string(req.matches[1]));
    size_t n = svc.cancel(*batch);
    reply(res, 200, Json::object({{"batch_id", batch->id}, {"cancelled", n}}));
  });

  server.Post("/v1/reward", [&](const httplib::Request &req, httplib::Response &res) {
    std::optional<Json> body = jsonBody(req, res, options);
    if (!body)
      return;
    std::vector<RewardRequest> one;
    try {
      one.push_back(parseRewardRequest(*body, "request body", options.requests));
    } catch (const std::exception &e) {
      return replyError(res, 400, e.what());
    }
    std::shared_ptr<Batch> batch = svc.submit(std::move(one), tlsClient);
    if (!batch) {
      res.set_header("Retry-After", std::to_string(options.retryAfterSeconds));
      return replyError(res, 503, "the queue is full: retry later");
    }
    while (!svc.waitComplete(*batch, Clock::now() + std::chrono::seconds(5)) && !svc.stopping()) {
    }
    Json snap = svc.snapshot(*batch);
    if (snap["results"].empty())
      return replyError(res, 503, "the service is stopping");
    const Json &record = snap["results"][0];
    reply(res, record.value("ok", false) ? 200 : record.value("status", 500), record);
  });

  server.set_error_handler([](const httplib::Request &req, httplib::Response &res) {
    if (res.body.empty())
      replyError(res, res.status,
                 res.status == 404   ? "no endpoint " + req.method + " " + req.path + " (see docs/reward.md)"
                 : res.status == 413 ? "request body too large"
                                     : "HTTP " + std::to_string(res.status));
  });
  server.set_exception_handler([](const httplib::Request &, httplib::Response &res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      if (ep)
        std::rethrow_exception(ep);
    } catch (const std::exception &e) {
      what = e.what();
    } catch (...) {
    }
    replyError(res, 500, what);
  });

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
    if (port < 0) {
      std::cerr << "cudaperf-reward: cannot listen on " << options.host << "\n";
      return 1;
    }
  } else if (!server.bind_to_port(options.host, port)) {
    std::cerr << "cudaperf-reward: cannot listen on " << options.host << ":" << port << "\n";
    return 1;
  }
  if (!options.portFile.empty()) {
    std::string tmp = options.portFile + ".tmp";
    std::ofstream(tmp) << port << "\n";
    std::rename(tmp.c_str(), options.portFile.c_str()); // readers never see a half-written file
  }
  std::cout << "cudaperf-reward: listening on http://" << options.host << ":" << port << " (" << pipeline.describe()
            << ")" << std::endl;
  stopOnSignals(server, svc, signals);
  server.listen_after_bind();
  service.reset(); // workers finish the request they are in, then stop
  return 0;
}

} // namespace cudaperf::reward
