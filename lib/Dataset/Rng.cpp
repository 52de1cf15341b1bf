#include "cudaperf/Dataset/Rng.h"
#include "cudaperf/Support/Hash.h"

#include <algorithm>

namespace cudaperf::dataset {

uint64_t hashString(std::string_view s, uint64_t seed) { return support::fnv1a64(s, seed); }

uint64_t Rng::next() {
  uint64_t z = support::splitmix64(state_);
  state_ += 0x9e3779b97f4a7c15ull;
  return z;
}

int Rng::uniformInt(int lo, int hi) {
  if (hi <= lo)
    return lo;
  uint64_t span = uint64_t(int64_t(hi) - lo) + 1;
  return int(int64_t(lo) + int64_t(next() % span));
}

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11) * 0x1.0p-53; }

bool Rng::chance(double p) { return uniform(0, 1) < p; }

std::vector<int> Rng::sample(int n, int k) {
  std::vector<int> all(size_t(std::max(n, 0)));
  for (int i = 0; i < n; ++i)
    all[size_t(i)] = i;
  for (int i = 0; i < std::min(k, n); ++i)
    std::swap(all[size_t(i)], all[size_t(uniformInt(i, n - 1))]);
  all.resize(size_t(std::min(k, n)));
  std::sort(all.begin(), all.end());
  return all;
}

} // namespace cudaperf::dataset
