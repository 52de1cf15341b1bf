// A small synchronous Redis client over hiredis for the work queue (docs/eval-serve.md, "Many hosts:
// the Redis queue"). Every reply is copied into a Reply tree and read through checked accessors:
// what a Redis server sends is untrusted input, and a wrong type is an error, never a crash.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

struct redisContext;

namespace cudaperf::queue {

class QueueError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The connection is gone or unusable (the caller may reconnect); other QueueErrors are answers.
class ConnectionError : public QueueError {
public:
  using QueueError::QueueError;
};

// redis://HOST:PORT/QUEUE, strictly: HOST a DNS name or IPv4 address (or [IPv6]), PORT 1-65535
// (6379 when left out), QUEUE 1-64 of [A-Za-z0-9_.-]; no user, password, query or fragment.
struct RedisUrl {
  std::string host;
  int port = 6379;
  std::string queue;
  std::string text() const;
};
RedisUrl parseRedisUrl(const std::string &url); // throws QueueError naming what is wrong

struct Reply {
  enum class Type { Nil, Integer, String, Status, Error, Array };
  Type type = Type::Nil;
  long long integer = 0;
  std::string str;
  std::vector<Reply> elements;

  bool isNil() const { return type == Type::Nil; }
  // Checked accessors: throw QueueError "WHAT: expected ..., got ..." on any other type.
  const std::string &string(const char *what) const; // String or Status
  long long integerValue(const char *what) const;
  const std::vector<Reply> &array(const char *what) const;
  const char *typeName() const;
};

class RedisClient {
public:
  // Connects (ConnectionError when it cannot); `timeoutSeconds` bounds each command's round trip.
  RedisClient(std::string host, int port, double timeoutSeconds);
  ~RedisClient();
  RedisClient(const RedisClient &) = delete;
  RedisClient &operator=(const RedisClient &) = delete;

  // One command; an error reply throws QueueError with Redis's text, a lost connection ConnectionError.
  Reply call(const std::vector<std::string> &argv);
  // Several commands in one round trip; error replies are returned as Type::Error.
  std::vector<Reply> pipeline(const std::vector<std::vector<std::string>> &commands);
  // Drops the connection and connects again (ConnectionError when it cannot).
  void reconnect();

private:
  void connect();
  Reply readReply();
  std::string host_;
  int port_;
  double timeoutSeconds_;
  redisContext *ctx_ = nullptr;
};

} // namespace cudaperf::queue
