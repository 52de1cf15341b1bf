//===- Occupancy.cpp - Theoretical occupancy per cudaOccupancyMaxActiveBlocksPerMultiprocessor ---===//
//
// The rules, each also in docs/occupancy.md:
//  warps      floor(warp slots per SM / ceil(block threads / 32))
//  blocks     the resident-block limit of the architecture
//  registers  a warp gets ceil(regs × 32 / 256) × 256 registers from one of 4 sub-partitions, each
//             a quarter of the register file; a block fits only if its warps, rounded up to a
//             multiple of 4, fit the per-block register limit
//  shared     static + dynamic + the per-block reservation, rounded up to the allocation unit; the
//             SM is configured to the carveout preference (rounded up to a supported size) or, if
//             one block would not fit in that, to the smallest size that holds one block
//  barriers   (9.0+) block slots × barriers per slot / barriers the kernel uses
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Occupancy/Occupancy.h"
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace cudaperf::occupancy {

namespace {

int divideRoundUp(int X, int Y) { return (X + Y - 1) / Y; }
int roundUp(int X, int Y) { return divideRoundUp(X, Y) * Y; }

/// The smallest configurable shared-memory size that holds \p Bytes, or -1 when none does.
int alignToCarveoutStep(const ArchSpec &A, int Bytes) {
  for (int StepKiB : A.carveoutStepsKiB)
    if (Bytes <= StepKiB * 1024)
      return StepKiB * 1024;
  return -1;
}

std::string format(const char *Fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *Fmt, ...) {
  char Buf[512];
  va_list Args;
  va_start(Args, Fmt);
  std::vsnprintf(Buf, sizeof(Buf), Fmt, Args);
  va_end(Args);
  return Buf;
}

int sharedBytes(const KernelResources &K, const LaunchShape &L) {
  return K.StaticSharedBytes + L.DynamicSharedBytes;
}

std::string percent(double Fraction) { return format("%.0f%%", Fraction * 100); }

} // namespace

const char *toString(Limiter L) {
  switch (L) {
  case Limiter::None: return "none";
  case Limiter::Warps: return "warps";
  case Limiter::Registers: return "registers";
  case Limiter::SharedMemory: return "shared-memory";
  case Limiter::Blocks: return "blocks";
  case Limiter::Barriers: return "barriers";
  case Limiter::BlockSize: return "block-size";
  }
  return "none";
}

OccupancyResult computeOccupancy(const ArchSpec &A, const KernelResources &K, const LaunchShape &L) {
  OccupancyResult R;
  R.MaxWarpsPerSM = A.maxWarpsPerSM();
  if (L.BlockThreads <= 0) {
    R.Limit = Limiter::BlockSize;
    R.Problem = "the block has no threads";
    return R;
  }
  R.WarpsPerBlock = divideRoundUp(L.BlockThreads, A.warpSize);

  // Warp slots; a block larger than the device allows never launches. A block larger than the
  // kernel's own limit (__launch_bounds__) fails to launch too, but the runtime's calculator
  // ignores that limit (measured on the H200: 7 blocks of 288 threads for a kernel bounded to
  // 256), so the count follows the runtime and the problem is reported beside it.
  if (L.BlockThreads > A.maxThreadsPerBlock) {
    R.BlocksByWarps = 0;
    R.Problem = format("blocks of %d threads exceed the device limit of %d", L.BlockThreads,
                       A.maxThreadsPerBlock);
  } else {
    R.BlocksByWarps = R.MaxWarpsPerSM / R.WarpsPerBlock;
    if (L.BlockThreads > K.MaxThreadsPerBlock)
      R.Problem = format("blocks of %d threads exceed the kernel's limit of %d "
                         "(__launch_bounds__): such a launch fails",
                         L.BlockThreads, K.MaxThreadsPerBlock);
  }

  // Registers.
  int RegsPerWarp = roundUp(K.RegistersPerThread * A.warpSize, A.registerAllocUnit);
  R.RegistersPerBlock = RegsPerWarp * R.WarpsPerBlock;
  int RegsCheckedPerBlock = RegsPerWarp * roundUp(R.WarpsPerBlock, A.subPartitions);
  // The calculator's per-thread limit (256), not ptxas's 255: the two differ only for an input
  // no compiled kernel has, and cudaOccMaxActiveBlocksPerMultiprocessor is the reference.
  if (K.RegistersPerThread > A.occupancyMaxRegistersPerThread || R.RegistersPerBlock > A.registersPerBlock ||
      RegsCheckedPerBlock > A.registersPerBlock) {
    R.BlocksByRegisters = 0;
    if (R.Problem.empty())
      R.Problem = format("%d registers per thread for %d warps need %d registers, over the "
                         "per-block limit of %d",
                         K.RegistersPerThread, R.WarpsPerBlock, RegsCheckedPerBlock,
                         A.registersPerBlock);
  } else if (RegsPerWarp > 0) {
    int WarpsPerSubPartition = (A.registersPerSM / A.subPartitions) / RegsPerWarp;
    R.BlocksByRegisters = WarpsPerSubPartition * A.subPartitions / R.WarpsPerBlock;
  }

  R.BlocksByBlockSlots = A.maxBlocksPerSM;

  // Shared memory.
  int StaticWithReserve = K.StaticSharedBytes + A.reservedSharedMemPerBlock;
  R.SharedBytesPerBlock = roundUp(StaticWithReserve + L.DynamicSharedBytes, A.sharedMemAllocUnit);
  int MaxDynamic = K.MaxDynamicSharedBytes
                       ? *K.MaxDynamicSharedBytes
                       : std::max(0, A.sharedMemPerBlock - K.StaticSharedBytes);
  int PerBlockLimit = (StaticWithReserve + MaxDynamic > A.sharedMemPerBlock
                           ? A.sharedMemPerBlockOptin
                           : A.sharedMemPerBlock) +
                      A.reservedSharedMemPerBlock;
  if (L.DynamicSharedBytes > MaxDynamic || R.SharedBytesPerBlock > PerBlockLimit) {
    R.BlocksBySharedMem = 0;
    if (R.Problem.empty())
      R.Problem = L.DynamicSharedBytes > MaxDynamic
                      ? format("%d bytes of dynamic shared memory exceed the kernel's maximum of %d "
                               "(cudaFuncAttributeMaxDynamicSharedMemorySize)",
                               L.DynamicSharedBytes, MaxDynamic)
                      : format("%d bytes of shared memory per block exceed the limit of %d",
                               StaticWithReserve - A.reservedSharedMemPerBlock + L.DynamicSharedBytes,
                               PerBlockLimit - A.reservedSharedMemPerBlock);
  } else {
    int Preferred = A.sharedMemPerSM;
    if (L.CarveoutPercent >= 0)
      Preferred = alignToCarveoutStep(A, std::min(L.CarveoutPercent, 100) * A.sharedMemPerSM / 100);
    if (Preferred < R.SharedBytesPerBlock)
      Preferred = alignToCarveoutStep(A, R.SharedBytesPerBlock);
    R.SharedMemConfigBytes = Preferred;
    if (R.SharedBytesPerBlock > 0)
      R.BlocksBySharedMem = Preferred / R.SharedBytesPerBlock;
  }

  // Barriers (9.0 on).
  if (A.barriersPerBlockSlot > 0 && K.Barriers > 0)
    R.BlocksByBarriers = A.maxBlocksPerSM * A.barriersPerBlockSlot / K.Barriers;

  // The binding limit, in the order a programmer can act on.
  const std::pair<Limiter, int> Limits[] = {
      {Limiter::Registers, R.BlocksByRegisters}, {Limiter::SharedMemory, R.BlocksBySharedMem},
      {Limiter::Barriers, R.BlocksByBarriers},   {Limiter::Warps, R.BlocksByWarps},
      {Limiter::Blocks, R.BlocksByBlockSlots}};
  int Active = INT_MAX;
  for (const auto &[Kind, Blocks] : Limits)
    Active = std::min(Active, Blocks);
  for (const auto &[Kind, Blocks] : Limits)
    if (Blocks == Active)
      R.AllLimiters.push_back(Kind);
  R.ActiveBlocksPerSM = Active;
  R.Limit = R.AllLimiters.front();
  if (Active == 0 && R.BlocksByWarps == 0)
    R.Limit = Limiter::BlockSize;
  R.ActiveWarpsPerSM = Active * R.WarpsPerBlock;
  R.Theoretical = R.MaxWarpsPerSM ? double(R.ActiveWarpsPerSM) / R.MaxWarpsPerSM : 0;
  return R;
}

std::optional<WaveInfo> computeWaves(long long GridBlocks, int ActiveBlocksPerSM, int SMs) {
  if (GridBlocks <= 0 || ActiveBlocksPerSM <= 0 || SMs <= 0)
    return std::nullopt;
  WaveInfo W;
  W.BlocksPerWave = static_cast<long long>(ActiveBlocksPerSM) * SMs;
  W.Waves = double(GridBlocks) / double(W.BlocksPerWave);
  W.FullWaves = GridBlocks / W.BlocksPerWave;
  long long Rest = GridBlocks % W.BlocksPerWave;
  W.LastWaveFraction = Rest == 0 ? 1.0 : double(Rest) / double(W.BlocksPerWave);
  return W;
}

std::vector<std::pair<int, OccupancyResult>> occupancyByBlockSize(const ArchSpec &A,
                                                                  const KernelResources &K,
                                                                  int DynamicSharedBytes,
                                                                  int CarveoutPercent) {
  std::vector<std::pair<int, OccupancyResult>> Rows;
  int Max = std::min(A.maxThreadsPerBlock, K.MaxThreadsPerBlock);
  for (int Threads = A.warpSize; Threads <= Max; Threads += A.warpSize)
    Rows.emplace_back(Threads, computeOccupancy(A, K, {Threads, DynamicSharedBytes, CarveoutPercent}));
  return Rows;
}

namespace {

std::optional<RaiseSuggestion> raiseByRegisters(const ArchSpec &A, const KernelResources &K,
                                                const LaunchShape &L, const OccupancyResult &Now) {
  int Target = Now.ActiveBlocksPerSM + 1;
  for (int Regs = K.RegistersPerThread - 1; Regs >= 1; --Regs) {
    KernelResources Capped = K;
    Capped.RegistersPerThread = Regs;
    OccupancyResult R = computeOccupancy(A, Capped, L);
    if (R.ActiveBlocksPerSM < Target)
      continue;
    RaiseSuggestion S;
    S.Change = Limiter::Registers;
    S.Value = Regs;
    S.ActiveBlocksPerSM = R.ActiveBlocksPerSM;
    S.Theoretical = R.Theoretical;
    S.Text = format("%d registers per thread allow %d block%s of %d; __launch_bounds__(%d, %d) caps "
                    "at %d and allows %d (%s occupancy)",
                    K.RegistersPerThread, Now.ActiveBlocksPerSM,
                    Now.ActiveBlocksPerSM == 1 ? "" : "s", L.BlockThreads, L.BlockThreads, Target,
                    Regs, R.ActiveBlocksPerSM, percent(R.Theoretical).c_str());
    return S;
  }
  return std::nullopt;
}

std::optional<RaiseSuggestion> raiseBySharedMemory(const ArchSpec &A, const KernelResources &K,
                                                   const LaunchShape &L, const OccupancyResult &Now) {
  int Target = Now.ActiveBlocksPerSM + 1;
  int Total = sharedBytes(K, L);
  // Candidate totals: each multiple of the allocation unit below the current total.
  for (int Less = (Total - 1) / A.sharedMemAllocUnit * A.sharedMemAllocUnit; Total > 0 && Less >= 0;
       Less -= A.sharedMemAllocUnit) {
    KernelResources KS = K;
    LaunchShape LS = L;
    KS.StaticSharedBytes = std::min(K.StaticSharedBytes, Less);
    LS.DynamicSharedBytes = Less - KS.StaticSharedBytes;
    OccupancyResult R = computeOccupancy(A, KS, LS);
    if (R.ActiveBlocksPerSM < Target)
      continue;
    RaiseSuggestion S;
    S.Change = Limiter::SharedMemory;
    S.Value = Less;
    S.ActiveBlocksPerSM = R.ActiveBlocksPerSM;
    S.Theoretical = R.Theoretical;
    S.Text = format("%d bytes of shared memory per block allow %d block%s per SM; at most %d bytes "
                    "(%d fewer) allow %d (%s occupancy)",
                    Total, Now.ActiveBlocksPerSM, Now.ActiveBlocksPerSM == 1 ? "" : "s", Less,
                    Total - Less, R.ActiveBlocksPerSM, percent(R.Theoretical).c_str());
    if (L.CarveoutPercent >= 0 && Now.SharedMemConfigBytes < A.sharedMemPerSM)
      S.Text += format(" (the carveout preference of %d%% gives the SM only %d bytes)",
                       L.CarveoutPercent, Now.SharedMemConfigBytes);
    return S;
  }
  return std::nullopt;
}

std::optional<RaiseSuggestion> raiseByBarriers(const ArchSpec &A, const KernelResources &K,
                                               const LaunchShape &L, const OccupancyResult &Now) {
  for (int Barriers = K.Barriers - 1; Barriers >= 1; --Barriers) {
    KernelResources KB = K;
    KB.Barriers = Barriers;
    OccupancyResult R = computeOccupancy(A, KB, L);
    if (R.ActiveBlocksPerSM <= Now.ActiveBlocksPerSM)
      continue;
    RaiseSuggestion S;
    S.Change = Limiter::Barriers;
    S.Value = Barriers;
    S.ActiveBlocksPerSM = R.ActiveBlocksPerSM;
    S.Theoretical = R.Theoretical;
    S.Text = format("%d named barriers per block allow %d blocks per SM; %d would allow %d (%s "
                    "occupancy)",
                    K.Barriers, Now.ActiveBlocksPerSM, Barriers, R.ActiveBlocksPerSM,
                    percent(R.Theoretical).c_str());
    return S;
  }
  return std::nullopt;
}

std::optional<RaiseSuggestion> raiseByBlockSize(const ArchSpec &A, const KernelResources &K,
                                                const LaunchShape &L, const OccupancyResult &Now) {
  // The block size with the highest occupancy; on ties, the one nearest the current size.
  std::optional<std::pair<int, OccupancyResult>> Best;
  for (auto &[Threads, R] : occupancyByBlockSize(A, K, L.DynamicSharedBytes, L.CarveoutPercent)) {
    if (R.ActiveWarpsPerSM <= Now.ActiveWarpsPerSM)
      continue;
    if (!Best || R.ActiveWarpsPerSM > Best->second.ActiveWarpsPerSM ||
        (R.ActiveWarpsPerSM == Best->second.ActiveWarpsPerSM &&
         std::abs(Threads - L.BlockThreads) < std::abs(Best->first - L.BlockThreads)))
      Best = std::make_pair(Threads, R);
  }
  if (!Best)
    return std::nullopt;
  const OccupancyResult &R = Best->second;
  RaiseSuggestion S;
  S.Change = Limiter::BlockSize;
  S.Value = Best->first;
  S.ActiveBlocksPerSM = R.ActiveBlocksPerSM;
  S.Theoretical = R.Theoretical;
  const char *Why = Now.Limit == Limiter::Blocks  ? "the resident-block limit"
                    : Now.Limit == Limiter::Warps ? "whole blocks of warp slots"
                                                  : toString(Now.Limit);
  S.Text = format("blocks of %d threads reach %s occupancy, limited by %s; blocks of %d threads "
                  "reach %s (%d blocks per SM)",
                  L.BlockThreads, percent(Now.Theoretical).c_str(), Why, Best->first,
                  percent(R.Theoretical).c_str(), R.ActiveBlocksPerSM);
  return S;
}

} // namespace

std::optional<RaiseSuggestion> suggestRaise(const ArchSpec &A, const KernelResources &K,
                                            const LaunchShape &L) {
  OccupancyResult Now = computeOccupancy(A, K, L);
  if (Now.Theoretical >= 1.0)
    return std::nullopt;
  std::optional<RaiseSuggestion> S;
  switch (Now.Limit) {
  case Limiter::Registers:
    S = raiseByRegisters(A, K, L, Now);
    break;
  case Limiter::SharedMemory:
    S = raiseBySharedMemory(A, K, L, Now);
    break;
  case Limiter::Barriers:
    S = raiseByBarriers(A, K, L, Now);
    break;
  default:
    break;
  }
  // When the limiting resource alone cannot raise it (another limit binds equally) or the block
  // shape itself limits, a different block size may.
  if (!S)
    S = raiseByBlockSize(A, K, L, Now);
  return S;
}

} // namespace cudaperf::occupancy
