// SHA-256 (FIPS 180-4) for build-cache keys: a key names the exact source, flags and
// toolkit, so a stale or colliding object is never reused.
#pragma once

#include <cstdint>
#include <string>

namespace cudaperf::support {

class Sha256 {
public:
  Sha256();
  Sha256 &update(const void *data, size_t size);
  Sha256 &update(const std::string &s) { return update(s.data(), s.size()); }
  // Length-prefixed, so ("ab","c") and ("a","bc") give different keys.
  Sha256 &field(const std::string &s);
  std::string hex(); // finishes the hash

private:
  void block(const unsigned char *p);
  uint32_t h_[8];
  unsigned char buf_[64];
  size_t bufLen_ = 0;
  uint64_t total_ = 0;
};

std::string sha256Hex(const std::string &data);

} // namespace cudaperf::support
