// The evaluation work queue on Redis Streams (docs/eval-serve.md, "Many hosts: the Redis queue").
//
// Keys, all under "cudaperf:QUEUE:": `jobs` (a stream; consumer group `workers`), `result:KEY`
// (a finished job's message, stored until fetched or expired), `done:ENTRY` (a stream entry that has
// produced its result), `reply:TOKEN` (a submitter's list of finished keys), `host:NAME` (a worker's
// heartbeat: a hash with a TTL) and `hosts` (the set of worker names seen).
//
// Delivery is at least once: a job whose worker stops renewing it is claimed again (XAUTOCLAIM), so
// it may run twice; the first result stored wins (SET NX, in one script with the submitter's
// notification), so a submitter sees one result per key whatever the workers do.
#pragma once

#include "cudaperf/Queue/Redis.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::queue {

constexpr const char *kQueueProtocol = "cudaperf-queue/1";

struct QueueConfig {
  double commandTimeoutSeconds = 10;  // one command's round trip (blocking reads wait less)
  long resultTtlSeconds = 86400;      // a result (and a submitter's notifications) kept this long
  long maxOutstanding = 1000;         // jobs in the stream (waiting or running) before submit refuses
  double reclaimAfterSeconds = 60;    // a job not renewed for this long is claimed by another worker
  int maxDeliveries = 3;              // a job delivered more often gets an error result (it kills workers)
  size_t maxJobBytes = size_t(16) << 20;
};

struct Job {
  std::string entryId;  // the stream entry
  std::string key;      // idempotency key: 64 hex digits
  std::string replyTo;  // the submitter's reply token
  std::string body;     // the job document (JSON text), checked by the worker
  long long deliveries = 1;
};

struct HostStatus {
  std::string name;
  std::map<std::string, std::string> fields; // as stored (host, pid, counters, last_seen, ...)
  bool alive = false;                        // its heartbeat has not expired
};

struct QueueStatus {
  long long length = 0;   // entries in the stream (waiting + running)
  long long pending = 0;  // delivered, not yet finished
  std::vector<HostStatus> hosts;
};

// The token naming a submitter's reply list: 1-64 of [A-Za-z0-9_.-].
bool validToken(const std::string &token);
// A worker's consumer name: 1-128 of [A-Za-z0-9_.:-].
bool validConsumerName(const std::string &name);
bool validKey(const std::string &key); // 64 lowercase hex digits

class WorkQueue {
public:
  WorkQueue(const RedisUrl &url, QueueConfig config = QueueConfig());
  const QueueConfig &config() const { return config_; }
  const RedisUrl &url() const { return url_; }
  RedisClient &client() { return client_; }
  std::string keyName(const std::string &suffix) const { return prefix_ + suffix; }

  // Creates the stream and its consumer group if missing (safe to call from every process).
  void ensureGroup();

  // Submits one job; nullopt when the stream already holds maxOutstanding entries (back-pressure:
  // wait and retry). `length` gets the stream's length after the call.
  std::optional<std::string> submit(const std::string &key, const std::string &replyTo, const std::string &body,
                                    long long *length = nullptr);
  // The same for many in one round trip; results[i] empty when job i was refused (queue full).
  std::vector<std::string> submitMany(const std::vector<Job> &jobs, long long *maxLength = nullptr);

  // Up to `count` new jobs for `consumer`, waiting at most blockMs (0: do not wait).
  std::vector<Job> claim(const std::string &consumer, int count, int blockMs);
  // Jobs of other (dead) consumers not renewed for reclaimAfterSeconds, now owned by `consumer`.
  std::vector<Job> reclaim(const std::string &consumer, int count);
  // Renews this consumer's jobs (resets their idle time) so that they are not reclaimed while running.
  void renew(const std::string &consumer, const std::vector<std::string> &entryIds);
  bool alreadyDone(const std::string &entryId);
  std::vector<bool> alreadyDone(const std::vector<std::string> &entryIds); // one round trip
  // Stores `message` as the job's result unless this entry or this key already has one; true when
  // this call's result is the one the submitter gets.
  bool storeResult(const Job &job, const std::string &message);
  // storeResult and finish for many jobs in one round trip; won[i] as storeResult's.
  std::vector<bool> storeResults(const std::vector<std::pair<Job, std::string>> &results);
  // Acknowledges and deletes the entry (the stream's length is what is outstanding).
  void finish(const std::string &entryId);

  // Submitter side: keys finished for this token (waits up to timeoutSeconds for the first).
  std::vector<std::string> waitFinished(const std::string &replyTo, double timeoutSeconds);
  // The stored result of `key`, deleted as it is read (GETDEL); nullopt when none.
  std::optional<std::string> takeResult(const std::string &key);
  std::vector<std::optional<std::string>> takeResults(const std::vector<std::string> &keys);

  void heartbeat(const std::string &consumer, const std::map<std::string, std::string> &fields, long ttlSeconds);
  QueueStatus status();

private:
  std::vector<Job> parseEntries(const Reply &entries, const char *what);
  RedisUrl url_;
  QueueConfig config_;
  std::string prefix_;
  RedisClient client_;
};

} // namespace cudaperf::queue
