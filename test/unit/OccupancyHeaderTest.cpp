//===- OccupancyHeaderTest.cpp - The calculator against cuda_occupancy.h, on random inputs ---===//
//
// Built only when the CUDA toolkit's cuda_occupancy.h is found (test/unit/CMakeLists.txt). The
// header is NVIDIA's host-side model of cudaOccupancyMaxActiveBlocksPerMultiprocessor; on the H200
// the driver agreed with it in 960 of 960 configurations (ENVIRONMENT.md). Here it is an oracle
// for every table row, where no GPU of that architecture is at hand.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Occupancy/Occupancy.h"
#include <cuda_occupancy.h>
#include <gtest/gtest.h>
#include <random>

using namespace cudaperf::occupancy;

TEST(OccupancyVsCudaOccupancyHeader, RandomConfigurationsOnEveryRow) {
  std::mt19937 Rng(20261129);
  const int PerRow = 50000;
  for (const ArchSpec &A : cudaperf::support::gpuArchs()) {
    cudaOccDeviceProp P;
    P.computeMajor = A.major;
    P.computeMinor = A.minor;
    P.maxThreadsPerBlock = A.maxThreadsPerBlock;
    P.maxThreadsPerMultiprocessor = A.maxThreadsPerSM;
    P.regsPerBlock = A.registersPerBlock;
    P.regsPerMultiprocessor = A.registersPerSM;
    P.warpSize = A.warpSize;
    P.sharedMemPerBlock = A.sharedMemPerBlock;
    P.sharedMemPerMultiprocessor = A.sharedMemPerSM;
    P.numSms = 100;
    P.sharedMemPerBlockOptin = A.sharedMemPerBlockOptin;
    P.reservedSharedMemPerBlock = A.reservedSharedMemPerBlock;
    int Differ = 0;
    for (int I = 0; I < PerRow; ++I) {
      cudaOccFuncAttributes F;
      F.maxThreadsPerBlock = (Rng() % 4 == 0) ? 32 * (1 + Rng() % 32) : 1024;
      F.numRegs = int(Rng() % 256);
      F.sharedSizeBytes = (Rng() % 3 == 0) ? 0 : Rng() % 49153;
      F.partitionedGCConfig = PARTITIONED_GC_OFF;
      F.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
      long MaxDyn = (Rng() % 2 ? A.sharedMemPerBlockOptin : A.sharedMemPerBlock) - long(F.sharedSizeBytes);
      F.maxDynamicSharedSizeBytes = size_t(std::max(0L, MaxDyn));
      F.numBlockBarriers = 1 + int(Rng() % 16);
      F.virtualResourceCount = 0;
      cudaOccDeviceState S;
      const int Carveouts[] = {-1, 0, 10, 25, 33, 50, 75, 100};
      S.carveoutConfig = Carveouts[Rng() % 8];
      int Block = 1 + int(Rng() % F.maxThreadsPerBlock);
      size_t Dyn = (Rng() % 2) ? Rng() % (A.sharedMemPerBlockOptin + 2000) : Rng() % 8192;
      cudaOccResult R;
      int Expected = cudaOccMaxActiveBlocksPerMultiprocessor(&R, &P, &F, &S, Block, Dyn) == CUDA_OCC_SUCCESS
                         ? R.activeBlocksPerMultiprocessor
                         : -1;
      KernelResources K;
      K.RegistersPerThread = F.numRegs;
      K.StaticSharedBytes = int(F.sharedSizeBytes);
      K.MaxThreadsPerBlock = F.maxThreadsPerBlock;
      K.MaxDynamicSharedBytes = int(F.maxDynamicSharedSizeBytes);
      K.Barriers = F.numBlockBarriers;
      int Got = computeOccupancy(A, K, {Block, int(Dyn), S.carveoutConfig}).ActiveBlocksPerSM;
      if (Got != Expected && ++Differ <= 5)
        ADD_FAILURE() << A.smName() << " regs " << F.numRegs << " static " << F.sharedSizeBytes
                      << " maxdyn " << F.maxDynamicSharedSizeBytes << " barriers " << F.numBlockBarriers
                      << " block " << Block << " dyn " << Dyn << " carveout " << S.carveoutConfig
                      << ": cuda_occupancy.h " << Expected << ", cudaperf " << Got;
    }
    EXPECT_EQ(Differ, 0) << A.smName();
  }
}
