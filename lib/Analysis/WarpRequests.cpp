//===- WarpRequests.cpp - Sectors and wavefronts of one warp request ------===//
#include "cudaperf/Analysis/WarpRequests.h"
#include <algorithm>
#include <map>
#include <set>

namespace cudaperf {

int64_t warpCount(const Dim3 &Block) {
  return (Block.count() + WarpSize - 1) / WarpSize;
}

std::vector<std::vector<ThreadIndex>> warpsOfBlock(const Dim3 &Block) {
  std::vector<std::vector<ThreadIndex>> Warps;
  if (Block.X < 1 || Block.Y < 1 || Block.Z < 1)
    return Warps; // no block of that shape can launch
  int64_t Total = Block.count();
  for (int64_t Linear = 0; Linear < Total; ++Linear) {
    if (Linear % WarpSize == 0)
      Warps.emplace_back();
    ThreadIndex T;
    T.X = Linear % Block.X;
    T.Y = (Linear / Block.X) % Block.Y;
    T.Z = Linear / (Block.X * Block.Y);
    Warps.back().push_back(T);
  }
  return Warps;
}

// Floor division for negative addresses (offsets relative to a symbolic base can be negative).
static int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  return (A % B != 0 && ((A < 0) != (B < 0))) ? Q - 1 : Q;
}

unsigned predictSectorsPerRequest(const std::vector<int64_t> &LaneAddresses, unsigned Bytes) {
  if (Bytes == 0)
    Bytes = 1;
  std::set<int64_t> Sectors;
  for (int64_t A : LaneAddresses) {
    int64_t First = floorDiv(A, SectorBytes), Last = floorDiv(A + Bytes - 1, SectorBytes);
    for (int64_t S = First; S <= Last; ++S)
      Sectors.insert(S);
  }
  return Sectors.size();
}

unsigned idealSectorsPerRequest(unsigned ActiveLanes, unsigned Bytes) {
  return (ActiveLanes * std::max(Bytes, 1u) + SectorBytes - 1) / SectorBytes;
}

unsigned predictSharedWavefronts(const std::vector<std::optional<int64_t>> &LaneAddresses,
                                 unsigned Bytes) {
  // Measured on the H200 (data/corpus/measured, shared_types and nbody): accesses of up to 8 bytes
  // are served for the whole warp at once (a double broadcast is 1 wavefront, unit-stride doubles 2,
  // doubles 2 apart 4); 16-byte accesses in two half-warp phases (a float4 broadcast is 2, unit
  // stride 4, stride 2 8).
  unsigned LanesPerPhase = Bytes > 8 ? 16 : WarpSize;
  unsigned Total = 0;
  for (size_t PhaseStart = 0; PhaseStart < LaneAddresses.size(); PhaseStart += LanesPerPhase) {
    std::map<int64_t, std::set<int64_t>> WordsPerBank;
    for (size_t L = PhaseStart; L < std::min(LaneAddresses.size(), PhaseStart + LanesPerPhase); ++L) {
      if (!LaneAddresses[L])
        continue;
      int64_t First = floorDiv(*LaneAddresses[L], SharedBankBytes);
      int64_t Last = floorDiv(*LaneAddresses[L] + std::max(Bytes, 1u) - 1, SharedBankBytes);
      for (int64_t W = First; W <= Last; ++W) {
        int64_t Bank = W % SharedBanks;
        if (Bank < 0)
          Bank += SharedBanks;
        WordsPerBank[Bank].insert(W);
      }
    }
    size_t Worst = 0;
    for (const auto &[Bank, Words] : WordsPerBank)
      Worst = std::max(Worst, Words.size());
    Total += Worst;
  }
  return Total;
}

} // namespace cudaperf
