// hiredis, wrapped: connections with timeouts, replies copied into checked trees, URL parsing.
#include "cudaperf/Queue/Redis.h"

#include <hiredis/hiredis.h>

#include <cctype>
#include <cmath>

namespace cudaperf::queue {

namespace {

bool hostChar(char c) { return std::isalnum((unsigned char)c) || c == '-' || c == '.'; }

timeval toTimeval(double seconds) {
  timeval tv;
  tv.tv_sec = long(seconds);
  tv.tv_usec = long((seconds - double(tv.tv_sec)) * 1e6);
  return tv;
}

// Replies nest only as deep as XREADGROUP's (4 levels); more is refused as hostile.
constexpr int kMaxReplyDepth = 8;

Reply copyReply(const redisReply *r, int depth) {
  if (depth > kMaxReplyDepth)
    throw QueueError("Redis reply nested deeper than " + std::to_string(kMaxReplyDepth) + " levels");
  Reply out;
  switch (r->type) {
  case REDIS_REPLY_NIL:
    out.type = Reply::Type::Nil;
    break;
  case REDIS_REPLY_INTEGER:
    out.type = Reply::Type::Integer;
    out.integer = r->integer;
    break;
  case REDIS_REPLY_STRING:
  case REDIS_REPLY_STATUS:
  case REDIS_REPLY_ERROR:
    out.type = r->type == REDIS_REPLY_STRING ? Reply::Type::String
               : r->type == REDIS_REPLY_STATUS ? Reply::Type::Status
                                               : Reply::Type::Error;
    out.str.assign(r->str ? r->str : "", r->str ? size_t(r->len) : 0);
    break;
  case REDIS_REPLY_ARRAY:
    out.type = Reply::Type::Array;
    out.elements.reserve(r->elements);
    for (size_t i = 0; i < r->elements; ++i)
      out.elements.push_back(copyReply(r->element[i], depth + 1));
    break;
  default:
    throw QueueError("Redis reply of unknown type " + std::to_string(r->type));
  }
  return out;
}

} // namespace

std::string RedisUrl::text() const {
  bool v6 = host.find(':') != std::string::npos;
  return "redis://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) + "/" + queue;
}

RedisUrl parseRedisUrl(const std::string &url) {
  auto fail = [&](const std::string &why) -> QueueError {
    return QueueError("bad queue URL '" + url.substr(0, 200) + "': " + why + " (expected redis://HOST:PORT/QUEUE)");
  };
  const std::string scheme = "redis://";
  if (url.compare(0, scheme.size(), scheme) != 0)
    throw fail("it must start with redis://");
  if (url.size() > 600)
    throw fail("longer than 600 characters");
  std::string rest = url.substr(scheme.size());
  size_t slash = rest.find('/');
  if (slash == std::string::npos)
    throw fail("no /QUEUE after the host");
  std::string authority = rest.substr(0, slash), queue = rest.substr(slash + 1);
  if (authority.find('@') != std::string::npos)
    throw fail("user names and passwords are not supported");
  RedisUrl out;
  std::string portText;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos)
      throw fail("unclosed [ in the host");
    out.host = authority.substr(1, close - 1);
    for (char c : out.host)
      if (!std::isxdigit((unsigned char)c) && c != ':' && c != '.')
        throw fail("bad character in the IPv6 address");
    std::string after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':')
        throw fail("expected :PORT after ]");
      portText = after.substr(1);
      if (portText.empty())
        throw fail("empty port");
    }
  } else {
    size_t colon = authority.find(':');
    out.host = authority.substr(0, colon);
    if (colon != std::string::npos) {
      portText = authority.substr(colon + 1);
      if (portText.empty())
        throw fail("empty port");
    }
    for (char c : out.host)
      if (!hostChar(c))
        throw fail(std::string("bad character '") + c + "' in the host");
  }
  if (out.host.empty())
    throw fail("no host");
  if (out.host.size() > 253)
    throw fail("host longer than 253 characters");
  if (!portText.empty()) {
    if (portText.size() > 5)
      throw fail("port out of range");
    for (char c : portText)
      if (!std::isdigit((unsigned char)c))
        throw fail("port is not a number");
    out.port = std::stoi(portText);
    if (out.port < 1 || out.port > 65535)
      throw fail("port out of range 1-65535");
  }
  if (queue.empty())
    throw fail("no queue name after /");
  if (queue.size() > 64)
    throw fail("queue name longer than 64 characters");
  for (char c : queue)
    if (!std::isalnum((unsigned char)c) && c != '_' && c != '-' && c != '.')
      throw fail("queue names are [A-Za-z0-9_.-] (no '/', '?', '#', spaces)");
  out.queue = queue;
  return out;
}

const char *Reply::typeName() const {
  switch (type) {
  case Type::Nil: return "nil";
  case Type::Integer: return "integer";
  case Type::String: return "string";
  case Type::Status: return "status";
  case Type::Error: return "error";
  case Type::Array: return "array";
  }
  return "?";
}

const std::string &Reply::string(const char *what) const {
  if (type != Type::String && type != Type::Status)
    throw QueueError(std::string(what) + ": expected a string from Redis, got " + typeName());
  return str;
}

long long Reply::integerValue(const char *what) const {
  if (type != Type::Integer)
    throw QueueError(std::string(what) + ": expected an integer from Redis, got " + typeName());
  return integer;
}

const std::vector<Reply> &Reply::array(const char *what) const {
  if (type != Type::Array)
    throw QueueError(std::string(what) + ": expected an array from Redis, got " + typeName());
  return elements;
}

RedisClient::RedisClient(std::string host, int port, double timeoutSeconds)
    : host_(std::move(host)), port_(port), timeoutSeconds_(timeoutSeconds) {
  connect();
}

RedisClient::~RedisClient() {
  if (ctx_)
    redisFree(ctx_);
}

void RedisClient::connect() {
  if (ctx_) {
    redisFree(ctx_);
    ctx_ = nullptr;
  }
  redisContext *c = redisConnectWithTimeout(host_.c_str(), port_, toTimeval(timeoutSeconds_));
  if (!c)
    throw ConnectionError("cannot allocate a Redis connection");
  if (c->err) {
    std::string why = c->errstr;
    redisFree(c);
    throw ConnectionError("cannot connect to Redis at " + host_ + ":" + std::to_string(port_) + ": " + why);
  }
  redisSetTimeout(c, toTimeval(timeoutSeconds_));
  ctx_ = c;
}

void RedisClient::reconnect() { connect(); }

Reply RedisClient::readReply() {
  void *raw = nullptr;
  if (!ctx_ || redisGetReply(ctx_, &raw) != REDIS_OK || !raw) {
    std::string why = ctx_ && ctx_->err ? ctx_->errstr : "no reply";
    if (raw)
      freeReplyObject(raw);
    if (ctx_) {
      redisFree(ctx_);
      ctx_ = nullptr;
    }
    throw ConnectionError("Redis at " + host_ + ":" + std::to_string(port_) + ": " + why);
  }
  try {
    Reply r = copyReply(static_cast<redisReply *>(raw), 0);
    freeReplyObject(raw);
    return r;
  } catch (...) {
    freeReplyObject(raw);
    throw;
  }
}

std::vector<Reply> RedisClient::pipeline(const std::vector<std::vector<std::string>> &commands) {
  if (!ctx_)
    throw ConnectionError("Redis at " + host_ + ":" + std::to_string(port_) + ": not connected");
  for (const auto &argv : commands) {
    std::vector<const char *> ptrs;
    std::vector<size_t> lens;
    for (const auto &a : argv) {
      ptrs.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(ctx_, int(ptrs.size()), ptrs.data(), lens.data()) != REDIS_OK)
      throw ConnectionError("cannot queue a Redis command");
  }
  std::vector<Reply> out;
  out.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i)
    out.push_back(readReply());
  return out;
}

Reply RedisClient::call(const std::vector<std::string> &argv) {
  Reply r = std::move(pipeline({argv}).front());
  if (r.type == Reply::Type::Error)
    throw QueueError("Redis " + (argv.empty() ? std::string() : argv[0]) + ": " + r.str.substr(0, 500));
  return r;
}

} // namespace cudaperf::queue
