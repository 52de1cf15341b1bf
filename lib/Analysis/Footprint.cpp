//===- Footprint.cpp - Distinct 32-byte sectors of a set of address ranges ===//
#include "cudaperf/Analysis/Footprint.h"
#include <algorithm>

namespace cudaperf {

namespace {
constexpr int64_t Sector = 32;
int64_t floorTo(int64_t V) { return (V >= 0 ? V / Sector : -((-V + Sector - 1) / Sector)) * Sector; }
int64_t ceilTo(int64_t V) { return floorTo(V + Sector - 1); }
} // namespace

double footprintBytes(std::vector<ByteRange> Ranges) {
  Ranges.erase(std::remove_if(Ranges.begin(), Ranges.end(),
                              [](const ByteRange &R) { return R.Hi <= R.Lo; }),
               Ranges.end());
  for (ByteRange &R : Ranges) {
    R.Lo = floorTo(R.Lo);
    R.Hi = ceilTo(R.Hi);
  }
  std::sort(Ranges.begin(), Ranges.end(),
            [](const ByteRange &A, const ByteRange &B) { return A.Lo < B.Lo; });
  double Total = 0;
  size_t I = 0;
  while (I < Ranges.size()) {
    int64_t Lo = Ranges[I].Lo, Hi = Ranges[I].Hi;
    double Density = Ranges[I].Density;
    size_t J = I + 1;
    for (; J < Ranges.size() && Ranges[J].Lo < Hi; ++J) {
      Hi = std::max(Hi, Ranges[J].Hi);
      Density = std::max(Density, Ranges[J].Density);
    }
    Total += double(Hi - Lo) * std::min(1.0, std::max(0.0, Density));
    I = J;
  }
  return Total;
}

} // namespace cudaperf
