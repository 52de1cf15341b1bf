// The worker loop, the submitter and the status report of the Redis queue.
#include "cudaperf/Queue/Worker.h"
#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"

#include <atomic>
#include <chrono>
#include <climits>
#include <deque>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <sys/stat.h>
#include <unistd.h>

namespace cudaperf::queue {

namespace serve = schema::serve;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
long long unixNow() { return (long long)std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count(); }

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

std::string defaultConsumer() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::string h;
  for (const char *p = host; *p; ++p)
    h += (std::isalnum((unsigned char)*p) || *p == '.' || *p == '-') ? *p : '_';
  return (h.empty() ? "host" : h.substr(0, 100)) + "-" + std::to_string(getpid());
}

// Waits for Redis to come back (it restarts; the connection dropped): retries every half second.
void reconnect(WorkQueue &q, const char *who, const volatile bool *stop) {
  bool said = false;
  while (!(stop && *stop)) {
    try {
      q.client().reconnect();
      if (said)
        std::cerr << who << ": reconnected to " << q.url().text() << "\n";
      return;
    } catch (const ConnectionError &e) {
      if (!said)
        std::cerr << who << ": " << e.what() << "; retrying\n";
      said = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
}

// A serve error message for no request yet (id null): the submitter puts in the ids it answers.
serve::Message errorMessage(const std::string &code, const std::string &message) {
  return serve::Message::make(serve::Error{code, message}, support::Json());
}

bool inside(const std::string &path, const std::string &root) {
  char *p = realpath(path.c_str(), nullptr), *r = realpath(root.c_str(), nullptr);
  bool ok = p && r && (std::string(p) + "/").rfind(std::string(r) + "/", 0) == 0;
  free(p);
  free(r);
  return ok;
}

std::string randomToken() {
  unsigned char bytes[12] = {0};
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read(fd, bytes, sizeof bytes) != ssize_t(sizeof bytes))
    throw QueueError("cannot read /dev/urandom");
  close(fd);
  char out[32];
  for (size_t i = 0; i < sizeof bytes; ++i)
    snprintf(out + 2 * i, 3, "%02x", bytes[i]);
  return out;
}

struct Active {
  Job job;
  std::string dir; // the task's directory
};

// A task's files are unpacked once per worker directory, named by their content, so that every job
// of a task sees the same task_dir (the evaluator keeps its reference, baseline and data per task)
// and concurrent workers on a host share it: unpacked into a fresh directory, then renamed.
std::string taskDirFor(const support::Json &files, const std::string &workDir, const TaskFileLimits &limits) {
  if (!files.is_object())
    throw QueueError("task_files: expected an object of \"path\": \"text\"");
  support::Sha256 h;
  for (const auto &[name, text] : files.items()) {
    if (!text.is_string())
      throw QueueError("task_files[\"" + name.substr(0, 200) + "\"]: expected a string");
    h.field(name).field(text.get_ref<const std::string &>());
  }
  std::string final = workDir + "/task-" + h.hex().substr(0, 32);
  struct stat st;
  if (lstat(final.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return final;
  std::string tmpl = workDir + "/unpack-XXXXXX";
  if (!mkdtemp(tmpl.data()))
    throw QueueError("cannot create a directory in " + workDir);
  try {
    unpackTaskFiles(files, tmpl, limits);
  } catch (...) {
    support::removeTree(tmpl);
    throw;
  }
  if (rename(tmpl.c_str(), final.c_str()) != 0) // another worker was first: same content
    support::removeTree(tmpl);
  return final;
}

// The worker's own directory under TMPDIR: created 0700, and refused unless ours.
std::string prepareWorkDir(const std::string &given) {
  std::string dir = given;
  if (dir.empty())
    dir = std::string(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") + "/cudaperf-queue-" + std::to_string(getuid());
  mkdir(dir.c_str(), 0700);
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
    throw QueueError("work directory " + dir + " is not a directory of this user's with mode 0700");
  return dir;
}

struct Counters {
  std::atomic<long long> claimed{0}, completed{0}, duplicates{0}, failed{0}, reclaimed{0}, inFlight{0};
};

} // namespace

int runQueueWorker(const RedisUrl &url, const QueueConfig &config, JobEvaluator &evaluator,
                   const WorkerOptions &options, const volatile bool *stop) {
  const char *who = "cudaperf-eval --worker";
  std::string consumer = options.consumer.empty() ? defaultConsumer() : options.consumer;
  if (!validConsumerName(consumer)) {
    std::cerr << who << ": bad worker name '" << consumer << "' (1-128 of [A-Za-z0-9_.:-])\n";
    return 2;
  }
  std::unique_ptr<WorkQueue> qp;
  try {
    qp = std::make_unique<WorkQueue>(url, config);
    qp->ensureGroup();
  } catch (const QueueError &e) {
    std::cerr << who << ": " << e.what() << "\n";
    return 1;
  }
  WorkQueue &q = *qp;
  std::string workDir;
  try {
    workDir = prepareWorkDir(options.workDir);
  } catch (const QueueError &e) {
    std::cerr << who << ": " << e.what() << "\n";
    return 1;
  }

  Counters counters;
  std::mutex mu;
  std::set<std::string> renewIds; // entries this worker holds (renewed by the heartbeat)
  std::atomic<bool> finished{false};
  long long startedAt = unixNow();
  char hostName[256] = {0};
  gethostname(hostName, sizeof hostName - 1);

  // Heartbeat and renewal on a connection of their own, so a long evaluation never lets them lapse.
  std::thread beat([&] {
    std::unique_ptr<WorkQueue> hq;
    long ttl = std::max(1L, long(std::ceil(3 * options.heartbeatSeconds)));
    while (!finished) {
      try {
        if (!hq)
          hq = std::make_unique<WorkQueue>(url, config);
        std::vector<std::string> ids;
        {
          std::lock_guard<std::mutex> lock(mu);
          ids.assign(renewIds.begin(), renewIds.end());
        }
        hq->renew(consumer, ids);
        hq->heartbeat(consumer,
                      {{"host", hostName},
                       {"pid", std::to_string(getpid())},
                       {"started", std::to_string(startedAt)},
                       {"last_seen", std::to_string(unixNow())},
                       {"claimed", std::to_string(counters.claimed)},
                       {"completed", std::to_string(counters.completed)},
                       {"duplicates", std::to_string(counters.duplicates)},
                       {"failed", std::to_string(counters.failed)},
                       {"reclaimed", std::to_string(counters.reclaimed)},
                       {"in_flight", std::to_string(counters.inFlight)}},
                      ttl);
      } catch (const QueueError &) {
        hq.reset(); // reconnect on the next beat
      }
      for (double waited = 0; waited < options.heartbeatSeconds && !finished; waited += 0.05)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });

  std::map<std::string, Active> active;
  std::vector<std::pair<Job, std::string>> unsent; // results not yet stored (Redis was away)
  auto forget = [&](const std::string &entryId) {
    auto it = active.find(entryId);
    if (it != active.end())
      active.erase(it);
    std::lock_guard<std::mutex> lock(mu);
    renewIds.erase(entryId);
    counters.inFlight = (long long)active.size();
  };
  auto refuse = [&](const Job &job, const std::string &code, const std::string &why) {
    ++counters.failed;
    serve::Message m = errorMessage(code, why);
    m.extra["host"] = consumer;
    unsent.emplace_back(job, support::writeJson(serve::messageToJson(m)));
  };
  auto startJob = [&](Job job) {
    if (active.count(job.entryId))
      return;
    if (!validKey(job.key) || !validToken(job.replyTo)) {
      std::cerr << who << ": entry " << job.entryId << " has no valid key or reply token; dropped\n";
      ++counters.failed;
      q.finish(job.entryId);
      return;
    }
    if (job.deliveries > config.maxDeliveries)
      return refuse(job, "worker_died",
                    "delivered " + std::to_string(job.deliveries) + " times without a result (its workers died)");
    Active a;
    try {
      support::JsonLimits limits;
      limits.maxBytes = config.maxJobBytes;
      limits.maxDepth = 32;
      limits.maxValues = 100000;
      support::Json doc = support::parseJson(job.body, "job", limits);
      if (!doc.is_object() || doc.value("protocol", "") != std::string(kQueueProtocol))
        throw QueueError(std::string("the job is not a ") + kQueueProtocol + " document");
      for (const auto &[k, v] : doc.items())
        if (k != "protocol" && k != "request" && k != "task_files")
          throw QueueError("unknown key \"" + k.substr(0, 100) + "\" in the job");
      const support::Json *req = support::member(doc, "request");
      if (!req || !req->is_object())
        throw QueueError("the job has no \"request\" object");
      support::Json request = *req;
      const support::Json *files = support::member(doc, "task_files");
      if (files && support::member(request, "task_dir"))
        throw QueueError("a job gives both task_files and a task_dir");
      if (files) {
        a.dir = taskDirFor(*files, workDir, options.limits);
        request["task_dir"] = a.dir;
      } else {
        const support::Json *dir = support::member(request, "task_dir");
        if (!dir || !dir->is_string())
          throw QueueError("the job has neither task_files nor a task_dir");
        if (options.taskRoot.empty())
          throw QueueError("this worker takes no shared task_dir (start it with --task-root)");
        if (!inside(dir->get<std::string>(), options.taskRoot))
          throw QueueError("task_dir is not inside this worker's --task-root");
      }
      request["id"] = job.entryId;
      a.job = job;
      {
        std::lock_guard<std::mutex> lock(mu);
        renewIds.insert(job.entryId);
      }
      active[job.entryId] = a;
      counters.inFlight = (long long)active.size();
      ++counters.claimed;
      evaluator.start(request);
    } catch (const std::exception &e) {
      forget(job.entryId);
      refuse(job, "bad_request", e.what());
    }
  };

  std::cerr << who << ": " << consumer << " serving " << url.text() << "\n";
  double lastReclaim = 0;
  while (!(stop && *stop)) {
    try {
      if (!unsent.empty()) {
        for (bool won : q.storeResults(unsent))
          ++(won ? counters.completed : counters.duplicates);
        unsent.clear();
      }
      int room = options.inFlight - int(active.size());
      if (room > 0) {
        std::vector<Job> jobs;
        if (now() - lastReclaim >= config.reclaimAfterSeconds / 4) {
          lastReclaim = now();
          for (Job &j : q.reclaim(consumer, room))
            if (!active.count(j.entryId)) {
              ++counters.reclaimed;
              jobs.push_back(std::move(j));
            }
        }
        if (int(jobs.size()) < room)
          for (Job &j : q.claim(consumer, room - int(jobs.size()), active.empty() && unsent.empty() ? 200 : 0))
            jobs.push_back(std::move(j));
        std::vector<std::string> ids;
        for (const Job &j : jobs)
          ids.push_back(j.entryId);
        std::vector<bool> done = q.alreadyDone(ids);
        for (size_t i = 0; i < jobs.size(); ++i) {
          if (done[i]) { // its first run stored the result and died before acknowledging
            q.finish(jobs[i].entryId);
            continue;
          }
          startJob(std::move(jobs[i]));
        }
      }
      for (support::Json &m : evaluator.poll(active.empty() ? 0 : 0.05)) {
        const support::Json *id = support::member(m, "id");
        if (!id || !id->is_string() || !active.count(id->get<std::string>()))
          continue;
        Job job = active[id->get<std::string>()].job;
        forget(job.entryId);
        m["id"] = job.key;
        m["host"] = consumer;
        unsent.emplace_back(job, support::writeJson(m));
      }
    } catch (const ConnectionError &e) {
      reconnect(q, who, stop);
    } catch (const EvaluatorStopped &e) {
      std::cerr << who << ": " << e.what() << "; its jobs go to other workers after the reclaim time\n";
      finished = true;
      beat.join();
      return 1;
    } catch (const std::exception &e) {
      std::cerr << who << ": " << e.what() << "\n";
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  finished = true;
  beat.join();
  return 0;
}

int submitAndWait(const RedisUrl &url, const QueueConfig &config, const std::vector<support::Json> &requests,
                  const SubmitOptions &options, const std::function<void(const support::Json &)> &onMessage,
                  SubmitStats &stats) {
  const std::string who = options.who;
  double start = now();
  // Every way out but success says why: on stderr (unless quiet) and in stats.error.
  auto failWith = [&](int rc, const std::string &why) {
    stats.error = why;
    stats.seconds = now() - start;
    if (!options.quiet)
      std::cerr << who << ": " << why << "\n";
    return rc;
  };
  // Jobs, one per idempotency key; a key asked for twice is evaluated once and answered twice.
  // task_dir -> its files and their digest; a job's body is made when it is submitted, so the
  // submitter holds each task's files once, whatever the number of requests.
  std::map<std::string, std::pair<support::Json, std::string>> packed;
  std::vector<Job> jobs;
  std::vector<std::pair<support::Json, const support::Json *>> parts; // per job: request, files
  std::map<std::string, std::vector<support::Json>> idsOfKey;
  std::string token;
  try {
    token = randomToken();
    for (const support::Json &r : requests) {
      if (!r.is_object() || !support::member(r, "id") || !support::member(r, "task_dir") ||
          !r["task_dir"].is_string())
        throw QueueError("a request needs an \"id\" and a \"task_dir\": " + support::jsonSnippet(r, 120));
      support::Json req = r;
      req.erase("id");
      if (const support::Json *c = support::member(req, "candidate")) {
        if (!c->is_string())
          throw QueueError("\"candidate\" must be a path");
        if (!support::member(req, "name"))
          req["name"] = *c;
        req["source"] = support::readRegularFile(c->get<std::string>(), options.limits.maxBytes);
        req.erase("candidate");
      }
      const support::Json *files = nullptr;
      std::string digest;
      if (!options.shareTaskPaths) {
        std::string dir = req["task_dir"].get<std::string>();
        auto it = packed.find(dir);
        if (it == packed.end()) {
          support::Json f = packTaskDir(dir, options.limits);
          std::string d = taskFilesDigest(f);
          it = packed.emplace(dir, std::make_pair(std::move(f), d)).first;
        }
        files = &it->second.first;
        digest = it->second.second;
        req.erase("task_dir");
      } else {
        char *abs = realpath(req["task_dir"].get<std::string>().c_str(), nullptr);
        if (!abs)
          throw QueueError("task_dir " + req["task_dir"].get<std::string>() + " does not exist");
        req["task_dir"] = std::string(abs);
        free(abs);
      }
      std::string key = idempotencyKey(req, digest);
      auto &ids = idsOfKey[key];
      ids.push_back(r["id"]);
      if (ids.size() == 1) {
        Job j;
        j.key = key;
        j.replyTo = token;
        std::string body = support::writeJson(makeJob(req, files));
        if (body.size() > config.maxJobBytes)
          throw QueueError("request " + support::writeJson(r["id"]) + " makes a job larger than " +
                           std::to_string(config.maxJobBytes) + " bytes");
        jobs.push_back(std::move(j));
        parts.emplace_back(std::move(req), files);
      }
    }
  } catch (const std::exception &e) {
    return failWith(2, e.what());
  }
  stats.submitted = (long long)requests.size();
  stats.unique = (long long)jobs.size();

  std::unique_ptr<WorkQueue> qp;
  try {
    qp = std::make_unique<WorkQueue>(url, config);
    qp->ensureGroup();
  } catch (const QueueError &e) {
    return failWith(1, url.text() + ": " + e.what());
  }
  WorkQueue &q = *qp;
  std::set<std::string> outstanding;
  for (const Job &j : jobs)
    outstanding.insert(j.key);
  auto deliver = [&](const std::string &key, const std::string &text) {
    if (!outstanding.erase(key)) {
      ++stats.ignored;
      return;
    }
    // A stored line that is not a serve message (the typed reader names what is wrong) still
    // answers its requests, as an error: the submitter never waits for it, nor stops on it.
    serve::Message m;
    try {
      support::JsonLimits limits;
      limits.maxBytes = size_t(256) << 20;
      m = serve::messageFromJson(support::parseJson(text, "result", limits), "result");
    } catch (const std::exception &e) {
      m = errorMessage("bad_result", std::string("the stored result is not a message: ") + e.what());
    }
    ++stats.results;
    for (const support::Json &id : idsOfKey[key]) {
      m.id = id;
      onMessage(serve::messageToJson(m));
    }
  };
  auto takeAll = [&](const std::vector<std::string> &keys) {
    for (size_t i = 0; i < keys.size(); i += 1000) {
      std::vector<std::string> chunk(keys.begin() + long(i), keys.begin() + long(std::min(keys.size(), i + 1000)));
      std::vector<std::optional<std::string>> got = q.takeResults(chunk);
      for (size_t k = 0; k < chunk.size(); ++k)
        if (got[k])
          deliver(chunk[k], *got[k]);
    }
  };

  std::deque<size_t> waiting; // jobs not yet accepted by the queue
  for (size_t i = 0; i < jobs.size(); ++i)
    waiting.push_back(i);
  double lastNews = now();
  double unreachableSince = 0; // when the connection was lost (0: connected)
  bool firstPass = true;
  while (!outstanding.empty()) {
    if (now() - start > options.timeoutSeconds)
      return failWith(1, std::to_string(outstanding.size()) + " results missing after " +
                             seconds(options.timeoutSeconds) + " s (no worker answered in time)");
    if (unreachableSince > 0) { // Redis went away: one try to reconnect per turn, bounded in time
      try {
        q.client().reconnect();
        unreachableSince = 0;
        if (!options.quiet)
          std::cerr << who << ": reconnected to " << url.text() << "\n";
      } catch (const ConnectionError &e) {
        if (now() - unreachableSince > options.unreachableSeconds)
          return failWith(1, url.text() + " unreachable for " + seconds(options.unreachableSeconds) +
                                 " s: " + e.what());
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
        continue;
      }
    }
    try {
      if (firstPass) { // results stored by an earlier run of the same requests (a restarted trainer)
        takeAll(std::vector<std::string>(outstanding.begin(), outstanding.end()));
        firstPass = false;
      }
      bool full = false;
      while (!waiting.empty() && !full) {
        std::vector<size_t> chunk;
        std::vector<Job> chunkJobs;
        while (!waiting.empty() && chunk.size() < 256) {
          size_t i = waiting.front();
          waiting.pop_front();
          if (!outstanding.count(jobs[i].key))
            continue; // its result came from an earlier run
          chunk.push_back(i);
          chunkJobs.push_back(jobs[i]);
          chunkJobs.back().body = support::writeJson(makeJob(parts[i].first, parts[i].second));
        }
        if (chunk.empty())
          break;
        std::vector<std::string> ids = q.submitMany(chunkJobs, &stats.maxLength);
        std::deque<size_t> refused;
        for (size_t k = 0; k < chunk.size(); ++k)
          if (ids[k].empty())
            refused.push_back(chunk[k]);
        if (!refused.empty()) { // the queue is full: these wait for room, in order
          full = true;
          ++stats.fullWaits;
          waiting.insert(waiting.begin(), refused.begin(), refused.end());
        }
      }
      std::vector<std::string> keys = q.waitFinished(token, waiting.empty() ? 1.0 : 0.1);
      if (!keys.empty()) {
        lastNews = now();
        takeAll(keys);
      } else if (now() - lastNews > 2.0) {
        // Quiet: look for results whose notification went elsewhere (a duplicate key of another
        // submitter, or an earlier run of ours).
        lastNews = now();
        takeAll(std::vector<std::string>(outstanding.begin(), outstanding.end()));
      }
    } catch (const ConnectionError &e) {
      if (!options.quiet)
        std::cerr << who << ": " << e.what() << "; reconnecting\n";
      unreachableSince = now();
    } catch (const std::exception &e) {
      return failWith(1, e.what());
    }
  }
  stats.seconds = now() - start;
  return 0;
}

int printQueueStatus(const RedisUrl &url, std::ostream &out) {
  try {
    WorkQueue q(url);
    QueueStatus s = q.status();
    size_t alive = 0;
    for (const auto &h : s.hosts)
      alive += h.alive;
    out << url.text() << ": " << s.length << " jobs in the stream (" << s.pending << " claimed by workers), "
        << alive << " of " << s.hosts.size() << " workers alive\n";
    long long t = unixNow();
    for (const auto &h : s.hosts) {
      out << "  " << h.name << (h.alive ? " alive" : " gone (no heartbeat)");
      for (const char *f : {"host", "pid", "in_flight", "claimed", "completed", "duplicates", "failed", "reclaimed"})
        if (auto it = h.fields.find(f); it != h.fields.end())
          out << " " << f << "=" << it->second.substr(0, 100);
      if (auto it = h.fields.find("last_seen"); it != h.fields.end()) {
        char *end = nullptr;
        long long seen = strtoll(it->second.c_str(), &end, 10);
        if (end && *end == 0)
          out << " last_seen=" << (t - seen) << "s_ago";
      }
      out << "\n";
    }
    return 0;
  } catch (const QueueError &e) {
    std::cerr << "cudaperf-eval --queue-status: " << e.what() << "\n";
    return 1;
  }
}

} // namespace cudaperf::queue
