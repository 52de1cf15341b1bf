// The generator's own PRNG (splitmix64): the same seed gives the same dataset on every machine
// and standard library, which std::mt19937's distributions do not promise.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace cudaperf::dataset {

uint64_t hashString(std::string_view s, uint64_t seed = 0xcbf29ce484222325ull); // FNV-1a 64 (support::fnv1a64)

class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  int uniformInt(int lo, int hi); // inclusive
  double uniform(double lo, double hi);
  bool chance(double p);
  template <class T> const T &pick(const std::vector<T> &v) { return v[size_t(uniformInt(0, int(v.size()) - 1))]; }
  // k distinct indices of [0, n), in increasing order.
  std::vector<int> sample(int n, int k);

private:
  uint64_t state_;
};

} // namespace cudaperf::dataset
