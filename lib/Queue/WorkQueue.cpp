// The queue's Redis commands; every reply is type-checked (Reply's accessors) before use.
#include "cudaperf/Queue/WorkQueue.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

namespace cudaperf::queue {

namespace {

constexpr const char *kGroup = "workers";

// Back-pressure, atomically: the stream's length is what is waiting or running (finished entries
// are deleted), and a submit past the bound is refused rather than trimming anyone's job.
constexpr const char *kSubmitScript = R"(
local n = redis.call('XLEN', KEYS[1])
if n >= tonumber(ARGV[1]) then return {0, n} end
local id = redis.call('XADD', KEYS[1], '*', 'key', ARGV[2], 'reply_to', ARGV[3], 'job', ARGV[4])
return {id, n + 1})";

// First result wins: once per stream entry (a re-delivered job's second run stores nothing, even
// after the first result was fetched) and once per key while a result is stored; the submitter's
// notification goes with the winning result in the same atomic step.
constexpr const char *kStoreScript = R"(
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[2]) then return 0 end
if not redis.call('SET', KEYS[2], ARGV[1], 'NX', 'EX', ARGV[2]) then return 0 end
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('EXPIRE', KEYS[3], ARGV[2])
return 1)";

bool allOf(const std::string &s, size_t minLen, size_t maxLen, bool (*ok)(char)) {
  if (s.size() < minLen || s.size() > maxLen)
    return false;
  for (char c : s)
    if (!ok(c))
      return false;
  return true;
}

bool validEntryId(const std::string &id) {
  size_t dash = id.find('-');
  if (id.empty() || id.size() > 41 || dash == std::string::npos || dash == 0 || dash + 1 == id.size())
    return false;
  for (size_t i = 0; i < id.size(); ++i)
    if (i != dash && !std::isdigit((unsigned char)id[i]))
      return false;
  return true;
}

} // namespace

bool validToken(const std::string &t) {
  return allOf(t, 1, 64, [](char c) { return bool(std::isalnum((unsigned char)c)) || c == '_' || c == '.' || c == '-'; });
}
bool validConsumerName(const std::string &t) {
  return allOf(t, 1, 128,
               [](char c) { return bool(std::isalnum((unsigned char)c)) || c == '_' || c == '.' || c == '-' || c == ':'; });
}
bool validKey(const std::string &k) {
  return allOf(k, 64, 64, [](char c) { return bool(std::isdigit((unsigned char)c)) || (c >= 'a' && c <= 'f'); });
}

WorkQueue::WorkQueue(const RedisUrl &url, QueueConfig config)
    : url_(url), config_(config), prefix_("cudaperf:" + url.queue + ":"),
      client_(url.host, url.port, config.commandTimeoutSeconds) {}

void WorkQueue::ensureGroup() {
  Reply r = client_.pipeline({{"XGROUP", "CREATE", keyName("jobs"), kGroup, "0", "MKSTREAM"}}).front();
  if (r.type == Reply::Type::Error && r.str.rfind("BUSYGROUP", 0) != 0)
    throw QueueError("Redis XGROUP CREATE: " + r.str.substr(0, 300));
}

std::optional<std::string> WorkQueue::submit(const std::string &key, const std::string &replyTo,
                                             const std::string &body, long long *length) {
  Job j;
  j.key = key;
  j.replyTo = replyTo;
  j.body = body;
  long long len = 0;
  std::vector<std::string> ids = submitMany({j}, &len);
  if (length)
    *length = len;
  if (ids.front().empty())
    return std::nullopt;
  return ids.front();
}

std::vector<std::string> WorkQueue::submitMany(const std::vector<Job> &jobs, long long *maxLength) {
  std::vector<std::vector<std::string>> commands;
  for (const Job &j : jobs) {
    if (!validKey(j.key) || !validToken(j.replyTo))
      throw QueueError("submit: bad key or reply token");
    if (j.body.size() > config_.maxJobBytes)
      throw QueueError("submit: a job of " + std::to_string(j.body.size()) + " bytes is over the limit of " +
                       std::to_string(config_.maxJobBytes));
    commands.push_back({"EVAL", kSubmitScript, "1", keyName("jobs"), std::to_string(config_.maxOutstanding), j.key,
                        j.replyTo, j.body});
  }
  std::vector<Reply> replies = client_.pipeline(commands);
  std::vector<std::string> out;
  for (const Reply &r : replies) {
    if (r.type == Reply::Type::Error)
      throw QueueError("Redis submit: " + r.str.substr(0, 300));
    const auto &a = r.array("submit reply");
    if (a.size() != 2)
      throw QueueError("submit reply: expected 2 elements");
    long long len = a[1].integerValue("submit reply length");
    if (maxLength && len > *maxLength)
      *maxLength = len;
    out.push_back(a[0].type == Reply::Type::Integer ? std::string() : a[0].string("submit reply id"));
  }
  return out;
}

std::vector<Job> WorkQueue::parseEntries(const Reply &entries, const char *what) {
  std::vector<Job> out;
  for (const Reply &e : entries.array(what)) {
    if (e.isNil()) // an entry deleted while pending (Redis 6.2 lists it as nil)
      continue;
    const auto &pair = e.array(what);
    if (pair.size() != 2)
      throw QueueError(std::string(what) + ": an entry is not [id, fields]");
    Job j;
    j.entryId = pair[0].string(what);
    if (!validEntryId(j.entryId))
      throw QueueError(std::string(what) + ": bad entry id");
    if (pair[1].isNil()) {
      out.push_back(j); // fields gone: the worker finishes it as malformed
      continue;
    }
    const auto &fields = pair[1].array(what);
    if (fields.size() % 2)
      throw QueueError(std::string(what) + ": odd field list");
    for (size_t i = 0; i < fields.size(); i += 2) {
      const std::string &name = fields[i].string(what);
      const std::string &value = fields[i + 1].string(what);
      if (name == "key")
        j.key = value;
      else if (name == "reply_to")
        j.replyTo = value;
      else if (name == "job")
        j.body = value;
    }
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<Job> WorkQueue::claim(const std::string &consumer, int count, int blockMs) {
  std::vector<std::string> argv = {"XREADGROUP", "GROUP", kGroup, consumer, "COUNT", std::to_string(count)};
  if (blockMs > 0) {
    argv.push_back("BLOCK");
    argv.push_back(std::to_string(blockMs));
  }
  argv.insert(argv.end(), {"STREAMS", keyName("jobs"), ">"});
  Reply r = client_.call(argv);
  if (r.isNil())
    return {};
  std::vector<Job> out;
  for (const Reply &stream : r.array("XREADGROUP")) {
    const auto &pair = stream.array("XREADGROUP stream");
    if (pair.size() != 2)
      throw QueueError("XREADGROUP: a stream is not [name, entries]");
    for (Job &j : parseEntries(pair[1], "XREADGROUP entries"))
      out.push_back(std::move(j));
  }
  return out;
}

std::vector<Job> WorkQueue::reclaim(const std::string &consumer, int count) {
  long long idleMs = (long long)(config_.reclaimAfterSeconds * 1000);
  Reply r = client_.call({"XAUTOCLAIM", keyName("jobs"), kGroup, consumer, std::to_string(idleMs), "0-0", "COUNT",
                          std::to_string(count)});
  const auto &a = r.array("XAUTOCLAIM");
  if (a.size() < 2)
    throw QueueError("XAUTOCLAIM: expected [next, entries, ...]");
  std::vector<Job> jobs = parseEntries(a[1], "XAUTOCLAIM entries");
  if (jobs.empty())
    return jobs;
  std::vector<std::vector<std::string>> commands;
  for (const Job &j : jobs)
    commands.push_back({"XPENDING", keyName("jobs"), kGroup, j.entryId, j.entryId, "1"});
  std::vector<Reply> replies = client_.pipeline(commands);
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (replies[i].type != Reply::Type::Array || replies[i].elements.empty())
      continue;
    const auto &info = replies[i].elements[0].array("XPENDING entry");
    if (info.size() == 4)
      jobs[i].deliveries = info[3].integerValue("XPENDING deliveries");
  }
  return jobs;
}

void WorkQueue::renew(const std::string &consumer, const std::vector<std::string> &entryIds) {
  if (entryIds.empty())
    return;
  // Only entries still this consumer's: one claimed by another worker while this one stalled stays
  // with the other (XCLAIM itself would take it back).
  std::set<std::string> wanted(entryIds.begin(), entryIds.end()), owned;
  Reply mine = client_.call({"XPENDING", keyName("jobs"), kGroup, "-", "+", std::to_string(entryIds.size() + 64), consumer});
  for (const Reply &e : mine.array("XPENDING"))
    if (const auto &info = e.array("XPENDING entry"); !info.empty() && wanted.count(info[0].string("XPENDING id")))
      owned.insert(info[0].str);
  if (owned.empty())
    return;
  std::vector<std::string> argv = {"XCLAIM", keyName("jobs"), kGroup, consumer, "0"};
  argv.insert(argv.end(), owned.begin(), owned.end());
  argv.push_back("JUSTID");
  client_.call(argv).array("XCLAIM");
}

bool WorkQueue::alreadyDone(const std::string &entryId) {
  return client_.call({"EXISTS", keyName("done:" + entryId)}).integerValue("EXISTS") != 0;
}

bool WorkQueue::storeResult(const Job &job, const std::string &message) {
  Reply r = client_.call({"EVAL", kStoreScript, "3", keyName("done:" + job.entryId), keyName("result:" + job.key),
                          keyName("reply:" + job.replyTo), message, std::to_string(config_.resultTtlSeconds), job.key});
  return r.integerValue("store result") == 1;
}

std::vector<bool> WorkQueue::alreadyDone(const std::vector<std::string> &entryIds) {
  std::vector<std::vector<std::string>> commands;
  for (const auto &id : entryIds)
    commands.push_back({"EXISTS", keyName("done:" + id)});
  std::vector<bool> out;
  for (const Reply &r : commands.empty() ? std::vector<Reply>() : client_.pipeline(commands))
    out.push_back(r.integerValue("EXISTS") != 0);
  return out;
}

std::vector<bool> WorkQueue::storeResults(const std::vector<std::pair<Job, std::string>> &results) {
  std::vector<std::vector<std::string>> commands;
  for (const auto &[job, message] : results) {
    commands.push_back({"EVAL", kStoreScript, "3", keyName("done:" + job.entryId), keyName("result:" + job.key),
                        keyName("reply:" + job.replyTo), message, std::to_string(config_.resultTtlSeconds), job.key});
    commands.push_back({"XACK", keyName("jobs"), kGroup, job.entryId});
    commands.push_back({"XDEL", keyName("jobs"), job.entryId});
  }
  std::vector<bool> won;
  std::vector<Reply> replies = commands.empty() ? std::vector<Reply>() : client_.pipeline(commands);
  for (size_t i = 0; i < replies.size(); i += 3) {
    for (size_t k = i; k < i + 3; ++k)
      if (replies[k].type == Reply::Type::Error)
        throw QueueError("Redis store/XACK/XDEL: " + replies[k].str.substr(0, 300));
    won.push_back(replies[i].integerValue("store result") == 1);
  }
  return won;
}

void WorkQueue::finish(const std::string &entryId) {
  for (const Reply &r : client_.pipeline({{"XACK", keyName("jobs"), kGroup, entryId}, {"XDEL", keyName("jobs"), entryId}}))
    if (r.type == Reply::Type::Error)
      throw QueueError("Redis XACK/XDEL: " + r.str.substr(0, 300));
}

std::vector<std::string> WorkQueue::waitFinished(const std::string &replyTo, double timeoutSeconds) {
  char timeout[32];
  snprintf(timeout, sizeof timeout, "%.3f", timeoutSeconds);
  std::string list = keyName("reply:" + replyTo);
  Reply first = client_.call({"BLPOP", list, timeout});
  std::vector<std::string> out;
  if (first.isNil())
    return out;
  const auto &a = first.array("BLPOP");
  if (a.size() != 2)
    throw QueueError("BLPOP: expected [list, value]");
  out.push_back(a[1].string("BLPOP value"));
  Reply more = client_.call({"LPOP", list, "1000"});
  if (!more.isNil())
    for (const Reply &v : more.array("LPOP"))
      out.push_back(v.string("LPOP value"));
  return out;
}

std::optional<std::string> WorkQueue::takeResult(const std::string &key) { return takeResults({key}).front(); }

std::vector<std::optional<std::string>> WorkQueue::takeResults(const std::vector<std::string> &keys) {
  std::vector<std::vector<std::string>> commands;
  for (const std::string &k : keys)
    commands.push_back({"GETDEL", keyName("result:" + k)});
  std::vector<std::optional<std::string>> out;
  for (const Reply &r : client_.pipeline(commands)) {
    if (r.type == Reply::Type::Error)
      throw QueueError("Redis GETDEL: " + r.str.substr(0, 300));
    out.push_back(r.isNil() ? std::nullopt : std::optional<std::string>(r.string("GETDEL")));
  }
  return out;
}

void WorkQueue::heartbeat(const std::string &consumer, const std::map<std::string, std::string> &fields,
                          long ttlSeconds) {
  std::vector<std::string> hset = {"HSET", keyName("host:" + consumer)};
  for (const auto &[k, v] : fields) {
    hset.push_back(k);
    hset.push_back(v);
  }
  for (const Reply &r : client_.pipeline({hset,
                                          {"EXPIRE", keyName("host:" + consumer), std::to_string(ttlSeconds)},
                                          {"SADD", keyName("hosts"), consumer}}))
    if (r.type == Reply::Type::Error)
      throw QueueError("Redis heartbeat: " + r.str.substr(0, 300));
}

QueueStatus WorkQueue::status() {
  QueueStatus s;
  std::vector<Reply> r = client_.pipeline({{"XLEN", keyName("jobs")},
                                           {"XPENDING", keyName("jobs"), kGroup},
                                           {"SRANDMEMBER", keyName("hosts"), "1000"}});
  s.length = r[0].integerValue("XLEN");
  if (r[1].type == Reply::Type::Array && !r[1].elements.empty()) // no group yet: an error reply
    s.pending = r[1].elements[0].integerValue("XPENDING count");
  std::vector<std::string> names;
  for (const Reply &n : r[2].array("SRANDMEMBER"))
    names.push_back(n.string("host name"));
  std::sort(names.begin(), names.end());
  std::vector<std::vector<std::string>> commands;
  for (const auto &n : names)
    commands.push_back({"HGETALL", keyName("host:" + n)});
  std::vector<Reply> hashes = commands.empty() ? std::vector<Reply>() : client_.pipeline(commands);
  for (size_t i = 0; i < names.size(); ++i) {
    HostStatus h;
    h.name = names[i];
    const auto &flat = hashes[i].array("HGETALL");
    if (flat.size() % 2)
      throw QueueError("HGETALL: odd field list");
    for (size_t k = 0; k + 1 < flat.size(); k += 2)
      h.fields[flat[k].string("HGETALL field")] = flat[k + 1].string("HGETALL value");
    h.alive = !flat.empty();
    s.hosts.push_back(std::move(h));
  }
  return s;
}

} // namespace cudaperf::queue
