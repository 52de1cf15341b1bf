//===- OccupancySweepTest.cpp - The calculator against cuda_occupancy.h, on a grid of inputs ---===//
//
// Issue 36: occupancy on every architecture of the GPU table (sm_70 .. sm_120, the Blackwell rows
// included) equals CUDA 13's calculator, cudaOccMaxActiveBlocksPerMultiprocessor of the toolkit's
// header-only cuda_occupancy.h, with a device-properties struct filled from our table. Unlike the
// random test beside it, this one walks a fixed grid: block sizes (1..1024, warp multiples and the
// sizes around them), registers per thread 0..256, static shared memory from 0 to past the opt-in
// limit, dynamic shared memory, barrier counts, carveout preferences and both per-block limits
// (default 48 KB and opted in). Every mismatch fails.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Occupancy/Occupancy.h"
#include <cuda_occupancy.h>
#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace cudaperf::occupancy;

namespace {

cudaOccDeviceProp propertiesOf(const ArchSpec &A) {
  cudaOccDeviceProp P;
  P.computeMajor = A.major;
  P.computeMinor = A.minor;
  P.maxThreadsPerBlock = A.maxThreadsPerBlock;
  P.maxThreadsPerMultiprocessor = A.maxThreadsPerSM;
  P.regsPerBlock = A.registersPerBlock;
  P.regsPerMultiprocessor = A.registersPerSM;
  P.warpSize = A.warpSize;
  P.sharedMemPerBlock = size_t(A.sharedMemPerBlock);
  P.sharedMemPerMultiprocessor = size_t(A.sharedMemPerSM);
  P.numSms = 148;
  P.sharedMemPerBlockOptin = size_t(A.sharedMemPerBlockOptin);
  P.reservedSharedMemPerBlock = size_t(A.reservedSharedMemPerBlock);
  return P;
}

std::vector<int> blockSizes() {
  std::set<int> S = {1, 2, 31, 33, 96, 100, 160, 192, 200, 288, 320, 384, 416, 448, 480, 500,
                     544, 576, 640, 672, 704, 768, 800, 864, 896, 960, 992, 1000, 1023, 1024, 1025};
  for (int W = 1; W <= 32; W *= 2)
    S.insert(W * 32);
  return {S.begin(), S.end()};
}

std::vector<int> registerCounts() {
  std::vector<int> R = {0, 1, 7, 8, 9, 16, 17, 24, 31, 32, 33, 40, 48, 56, 63, 64, 65, 72, 80, 96,
                        120, 128, 129, 144, 160, 168, 192, 200, 224, 232, 240, 248, 255, 256};
  return R;
}

} // namespace

TEST(OccupancyVsCudaOccupancyHeader, SweepOnEveryRow) {
  const std::vector<int> Blocks = blockSizes(), Regs = registerCounts();
  const int CarveoutPrefs[] = {-1, 0, 50, 100};
  long Compared = 0;
  std::set<std::string> Covered;
  for (const ArchSpec &A : cudaperf::support::gpuArchs()) {
    Covered.insert(A.smName());
    cudaOccDeviceProp P = propertiesOf(A);
    const int OptIn = A.sharedMemPerBlockOptin;
    const std::vector<int> StaticSmem = {0, 1, 1024, 4096, 12288, 16384, 24577, 32768, 49152};
    const std::vector<int> DynamicSmem = {0, 100, 2048, 8192, 20000, 49152, 65536, OptIn / 2,
                                          OptIn - 4096, OptIn, OptIn + 1};
    int Differ = 0;
    for (int Block : Blocks)
      for (int R : Regs)
        for (int Static : StaticSmem)
          for (int Dyn : DynamicSmem)
            for (bool OptedIn : {false, true})
              for (int Carveout : CarveoutPrefs)
                for (int Barriers : {1, 3}) {
                  if (Static > A.sharedMemPerBlock)
                    continue; // ptxas rejects more than 48 KB of static shared memory
                  cudaOccFuncAttributes F;
                  F.maxThreadsPerBlock = 1024;
                  F.numRegs = R;
                  F.sharedSizeBytes = size_t(Static);
                  F.partitionedGCConfig = PARTITIONED_GC_OFF;
                  F.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
                  int MaxDyn = std::max(0, (OptedIn ? OptIn : A.sharedMemPerBlock) - Static);
                  F.maxDynamicSharedSizeBytes = size_t(MaxDyn);
                  F.numBlockBarriers = Barriers;
                  F.virtualResourceCount = 0;
                  cudaOccDeviceState S;
                  S.carveoutConfig = Carveout;
                  cudaOccResult Res;
                  int Expected = cudaOccMaxActiveBlocksPerMultiprocessor(&Res, &P, &F, &S, Block,
                                                                          size_t(Dyn)) == CUDA_OCC_SUCCESS
                                     ? Res.activeBlocksPerMultiprocessor
                                     : 0;
                  KernelResources K;
                  K.RegistersPerThread = R;
                  K.StaticSharedBytes = Static;
                  K.MaxThreadsPerBlock = 1024;
                  K.MaxDynamicSharedBytes = MaxDyn;
                  K.Barriers = Barriers;
                  int Got = computeOccupancy(A, K, {Block, Dyn, Carveout}).ActiveBlocksPerSM;
                  ++Compared;
                  if (Got != Expected && ++Differ <= 5)
                    ADD_FAILURE() << A.smName() << ": block " << Block << " regs " << R << " static "
                                  << Static << " dyn " << Dyn << " maxdyn " << MaxDyn << " carveout "
                                  << Carveout << " barriers " << Barriers << ": cuda_occupancy.h "
                                  << Expected << ", cudaperf " << Got;
                }
    EXPECT_EQ(Differ, 0) << A.smName();
  }
  for (const char *Needed : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_103", "sm_120"})
    EXPECT_TRUE(Covered.count(Needed)) << Needed << " is missing from the GPU table";
  EXPECT_GT(Compared, 1000000);
}
