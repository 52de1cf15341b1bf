// The message channel between the trusted worker and its untrusted runner (docs/security.md,
// "Trust split"): one JSON object per datagram on a SOCK_SEQPACKET socket pair, so message
// boundaries are the kernel's and a hostile peer cannot make the reader buffer without bound.
// Either side treats whatever arrives as untrusted: size-limited, parsed with exceptions caught.
// What the messages mean is schema::runner's (cudaperf/Schema/RunnerProtocol.h): the channel
// carries JSON objects, the worker and the runner read and write them only through those types.
#pragma once

#include "cudaperf/Support/Json.h"

#include <string>

namespace cudaperf::worker {

class Channel {
public:
  static constexpr size_t kMaxMessageBytes = 1 << 20;

  Channel() = default;
  explicit Channel(int fd) : fd_(fd) {}
  Channel(const Channel &) = delete;
  Channel &operator=(const Channel &) = delete;
  ~Channel();

  // A connected pair; false with errno set on failure.
  static bool pair(int &a, int &b);

  int fd() const { return fd_; }
  void adopt(int fd);
  void close();
  bool send(const support::Json &message);
  // The next message: false at end of stream, on a timeout (timeoutSeconds < 0: none), or when
  // what came is not a JSON object no larger than kMaxMessageBytes (`error` says which).
  bool receive(support::Json &message, double timeoutSeconds, std::string &error);

private:
  int fd_ = -1;
};

} // namespace cudaperf::worker
