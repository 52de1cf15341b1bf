#include "Channel.h"

#include <cerrno>
#include <chrono>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace cudaperf::worker {

namespace {
// The protocol's messages nest a few levels; a hostile peer's deep nesting must not reach a
// recursive parser.
bool nestingWithin(const char *p, size_t n, int limit) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (size_t i = 0; i < n; ++i) {
    char c = p[i];
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}
} // namespace

Channel::~Channel() { close(); }

bool Channel::pair(int &a, int &b) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    return false;
  a = fds[0];
  b = fds[1];
  return true;
}

void Channel::adopt(int fd) {
  close();
  fd_ = fd;
}

void Channel::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

bool Channel::send(const support::Json &message) {
  std::string text = support::writeJson(message);
  if (fd_ < 0 || text.size() > kMaxMessageBytes)
    return false;
  ssize_t n;
  do
    n = ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  return n == ssize_t(text.size());
}

bool Channel::receive(support::Json &message, double timeoutSeconds, std::string &error) {
  error.clear();
  if (fd_ < 0) {
    error = "channel closed";
    return false;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
  while (true) {
    int waitMs = -1;
    if (timeoutSeconds >= 0) {
      double left = std::chrono::duration<double, std::milli>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) {
        error = "no answer in time";
        return false;
      }
      waitMs = int(left) + 1;
    }
    pollfd p{fd_, POLLIN, 0};
    int r = poll(&p, 1, waitMs);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      error = "poll failed";
      return false;
    }
    if (r > 0)
      break;
  }
  std::vector<char> buf(kMaxMessageBytes + 1);
  ssize_t n;
  do
    n = recv(fd_, buf.data(), buf.size(), MSG_TRUNC);
  while (n < 0 && errno == EINTR);
  if (n == 0) {
    error = "the other side closed the channel";
    return false;
  }
  if (n < 0 || size_t(n) > kMaxMessageBytes) {
    error = n < 0 ? "receive failed" : "message larger than the channel's limit";
    return false;
  }
  if (!nestingWithin(buf.data(), size_t(n), 16)) {
    error = "malformed message: nested too deeply";
    return false;
  }
  try {
    message = support::parseJson(std::string(buf.data(), size_t(n)), "channel message");
  } catch (const std::exception &e) {
    error = std::string("malformed message: ") + e.what();
    return false;
  }
  if (!message.is_object()) {
    error = "malformed message: not an object";
    return false;
  }
  return true;
}

} // namespace cudaperf::worker
