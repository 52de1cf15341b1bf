//===- WarpRequests.h - How a warp's lane addresses become memory work -*- C++ -*-===//
//
// Pure functions, no LLVM: which threads of a block form each warp, and what one warp-wide memory
// instruction costs given the byte address of every active lane.
//  - Global memory: the number of distinct 32-byte sectors touched (what Nsight Compute reports as
//    l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st} per request).
//  - Shared memory: wavefronts (bank-conflict ways), 32 banks of 4 bytes.
// Used by the coalescing analysis (issue 3) and the shared-memory analysis (issue 4).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_WARPREQUESTS_H
#define CUDAPERF_ANALYSIS_WARPREQUESTS_H

#include "cudaperf/Report/KernelReport.h"
#include <cstdint>
#include <vector>

namespace cudaperf {

constexpr unsigned WarpSize = 32;
constexpr unsigned SectorBytes = 32;
constexpr unsigned SharedBanks = 32;
constexpr unsigned SharedBankBytes = 4;

/// A thread's index inside its block.
struct ThreadIndex {
  int64_t X = 0, Y = 0, Z = 0;
  bool operator==(const ThreadIndex &O) const { return X == O.X && Y == O.Y && Z == O.Z; }
};

/// The warps of a block: linear thread id = x + y*Bx + z*Bx*By (x fastest); lanes are consecutive
/// linear ids, 32 per warp; the last warp is partial when the block is not a multiple of 32.
std::vector<std::vector<ThreadIndex>> warpsOfBlock(const Dim3 &Block);

/// Number of warps of a block.
int64_t warpCount(const Dim3 &Block);

/// Distinct 32-byte sectors touched by one warp request whose active lanes access \p Bytes bytes
/// (1..16) each, starting at the given byte addresses. No lanes: 0.
unsigned predictSectorsPerRequest(const std::vector<int64_t> &LaneAddresses, unsigned Bytes);

/// Ideal sectors for \p ActiveLanes lanes of \p Bytes each: ceil(lanes * bytes / 32).
unsigned idealSectorsPerRequest(unsigned ActiveLanes, unsigned Bytes);

/// Shared-memory wavefronts of one warp request (1 = conflict-free for up to 4-byte lanes). Rule,
/// checked against the H200 measurements (docs/accuracy.md): 32 banks of 4 bytes; lanes touching the
/// same 4-byte word share it (broadcast); accesses of up to 8 bytes are served for all 32 lanes
/// together, 16-byte accesses in two phases of 16 lanes; a phase costs the largest number of distinct
/// words that fall into one bank; phases with no active lane cost nothing. \p LaneAddresses holds one
/// entry per lane of the warp, in lane order; inactive lanes are std::nullopt.
unsigned predictSharedWavefronts(const std::vector<std::optional<int64_t>> &LaneAddresses,
                                 unsigned Bytes);

} // namespace cudaperf

#endif
