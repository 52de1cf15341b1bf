//===- OccupancyTest.cpp - The occupancy calculator against known answers ----------===//
//
// Hand-derived cases for each limit, waves and suggestions (the table: test/support/GpuTableTest.cpp), and a replay of the sweep
// measured on the H200 (data/measured/occupancy-sweep-h200.csv), which must match exactly.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Occupancy/Occupancy.h"
#include <gtest/gtest.h>
#include <fstream>
#include <map>
#include <sstream>

using namespace cudaperf::occupancy;

namespace {

const ArchSpec &sm90() {
  const ArchSpec *A = cudaperf::support::findGpuArch("sm_90");
  EXPECT_NE(A, nullptr);
  return *A;
}

OccupancyResult occ(const ArchSpec &A, int Regs, int Threads, int StaticSmem = 0, int DynSmem = 0,
                    int Carveout = -1) {
  KernelResources K;
  K.RegistersPerThread = Regs;
  K.StaticSharedBytes = StaticSmem;
  return computeOccupancy(A, K, {Threads, DynSmem, Carveout});
}

} // namespace

TEST(Occupancy, RegisterLimitFromTheIssueExample) {
  // 72 registers: 2304 per warp; 16384 / 2304 = 7 warps per sub-partition, 28 per SM: 3 blocks of 8.
  OccupancyResult R = occ(sm90(), 72, 256);
  EXPECT_EQ(R.ActiveBlocksPerSM, 3);
  EXPECT_EQ(R.ActiveWarpsPerSM, 24);
  EXPECT_DOUBLE_EQ(R.Theoretical, 24.0 / 64);
  EXPECT_EQ(R.Limit, Limiter::Registers);
  EXPECT_EQ(R.BlocksByRegisters, 3);
  EXPECT_EQ(R.BlocksByWarps, 8);

  KernelResources K;
  K.RegistersPerThread = 72;
  auto S = suggestRaise(sm90(), K, {256, 0, -1});
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Change, Limiter::Registers);
  EXPECT_EQ(S->Value, 64);
  EXPECT_EQ(S->ActiveBlocksPerSM, 4);
  EXPECT_NE(S->Text.find("72 registers per thread allow 3 blocks of 256; __launch_bounds__(256, 4) "
                         "caps at 64 and allows 4"),
            std::string::npos)
      << S->Text;
}

TEST(Occupancy, RegistersRoundToWholeUnitsPerWarp) {
  // 33 and 40 registers both allocate 1280 per warp: 12 warps per sub-partition, 48 per SM.
  EXPECT_EQ(occ(sm90(), 33, 128).ActiveBlocksPerSM, 12);
  EXPECT_EQ(occ(sm90(), 40, 128).ActiveBlocksPerSM, 12);
  EXPECT_EQ(occ(sm90(), 41, 128).ActiveBlocksPerSM, 10); // 1536: 10 warps per quarter, 40 warps
  // Sub-partition granularity: 168 registers -> 5376 per warp, 3 warps per quarter = 12 per SM,
  // while 65536 / 5376 would be 12.19 warps; a block of 5 warps fits twice (10 warps), not 2.4.
  EXPECT_EQ(occ(sm90(), 168, 160).ActiveBlocksPerSM, 2);
}

TEST(Occupancy, PerBlockRegisterCheckRoundsWarpsToSubPartitions) {
  // 255 registers -> 8192 per warp; 1024 threads need 32 × 8192 > 65536: cannot launch.
  OccupancyResult R = occ(sm90(), 255, 1024);
  EXPECT_EQ(R.ActiveBlocksPerSM, 0);
  EXPECT_EQ(R.Limit, Limiter::Registers);
  EXPECT_FALSE(R.Problem.empty());
  // 64 registers -> 2048 per warp; 1000 threads = 32 warps -> 65536: exactly fits.
  EXPECT_EQ(occ(sm90(), 64, 1000).ActiveBlocksPerSM, 1);
  // 128 registers -> 4096 per warp; 16 warps fit, but 17 warps (rounded to 20 for the check) do not.
  EXPECT_EQ(occ(sm90(), 128, 512).ActiveBlocksPerSM, 1);
  EXPECT_EQ(occ(sm90(), 128, 513).ActiveBlocksPerSM, 0);
}

TEST(Occupancy, SharedMemoryAllocationAndReservation) {
  // 10,000 B static + 1 KB reserved = 11,024 -> 11,136 (128 B unit); 233,472 / 11,136 = 20.
  OccupancyResult R = occ(sm90(), 16, 64, 10000);
  EXPECT_EQ(R.SharedBytesPerBlock, 11136);
  EXPECT_EQ(R.BlocksBySharedMem, 20);
  EXPECT_EQ(R.ActiveBlocksPerSM, 20);
  EXPECT_EQ(R.Limit, Limiter::SharedMemory);
  // Volta: no reservation, 256 B unit: 10,000 -> 10,240; 98,304 / 10,240 = 9.
  EXPECT_EQ(occ(*cudaperf::support::findGpuArch(7, 0), 16, 64, 10000).BlocksBySharedMem, 9);
  // Dynamic shared memory beyond 48 KB without opt-in does not launch.
  EXPECT_EQ(occ(sm90(), 16, 128, 0, 50000).ActiveBlocksPerSM, 0);
  KernelResources K;
  K.RegistersPerThread = 16;
  K.MaxDynamicSharedBytes = 232448;
  EXPECT_EQ(computeOccupancy(sm90(), K, {128, 100000, -1}).ActiveBlocksPerSM, 2);
  EXPECT_EQ(computeOccupancy(sm90(), K, {128, 232448, -1}).ActiveBlocksPerSM, 1);
}

TEST(Occupancy, CarveoutPreference) {
  // 8 KB static + 1 KB = 9216 B per block. Preference 50% of 228 KB = 116,736 -> 132 KB step:
  // 135,168 / 9216 = 14 blocks.
  OccupancyResult R = occ(sm90(), 16, 64, 8192, 0, 50);
  EXPECT_EQ(R.SharedMemConfigBytes, 132 * 1024);
  EXPECT_EQ(R.ActiveBlocksPerSM, 14);
  // Preference 0%: the SM takes the smallest step that holds one block (16 KB): 1 block.
  EXPECT_EQ(occ(sm90(), 16, 64, 8192, 0, 0).ActiveBlocksPerSM, 1);
  // Turing has no 0 KB configuration: the smallest is 32 KB.
  EXPECT_EQ(occ(*cudaperf::support::findGpuArch(7, 5), 16, 64, 8192, 0, 0).ActiveBlocksPerSM, 4);
}

TEST(Occupancy, WarpAndBlockSlotLimits) {
  OccupancyResult Small = occ(sm90(), 16, 32);
  EXPECT_EQ(Small.ActiveBlocksPerSM, 32);
  EXPECT_EQ(Small.Limit, Limiter::Blocks);
  EXPECT_DOUBLE_EQ(Small.Theoretical, 0.5);
  OccupancyResult Big = occ(sm90(), 16, 768); // 24 warps: 2 blocks = 48 of 64 warps
  EXPECT_EQ(Big.ActiveBlocksPerSM, 2);
  EXPECT_EQ(Big.Limit, Limiter::Warps);
  EXPECT_DOUBLE_EQ(Big.Theoretical, 0.75);
  EXPECT_EQ(occ(*cudaperf::support::findGpuArch(8, 6), 16, 1024).ActiveWarpsPerSM, 32); // 48 warp slots on GA10x
  EXPECT_EQ(occ(sm90(), 16, 1025).ActiveBlocksPerSM, 0);
  EXPECT_EQ(occ(sm90(), 16, 1025).Limit, Limiter::BlockSize);

  KernelResources Bounded;
  Bounded.RegistersPerThread = 16;
  Bounded.MaxThreadsPerBlock = 256;
  // Over __launch_bounds__: the launch fails, but cudaOccupancyMaxActiveBlocksPerMultiprocessor
  // counts the block as if it could run (H200 sweep: 7 blocks of 288 threads, bounded to 256).
  OccupancyResult Over = computeOccupancy(sm90(), Bounded, {512, 0, -1});
  EXPECT_EQ(Over.ActiveBlocksPerSM, 4);
  EXPECT_NE(Over.Problem.find("__launch_bounds__"), std::string::npos);
  EXPECT_TRUE(computeOccupancy(sm90(), Bounded, {256, 0, -1}).Problem.empty());

  KernelResources K;
  K.RegistersPerThread = 16;
  auto S = suggestRaise(sm90(), K, {32, 0, -1});
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Change, Limiter::BlockSize);
  EXPECT_EQ(S->Value, 64);
  EXPECT_DOUBLE_EQ(S->Theoretical, 1.0);
}

TEST(Occupancy, BarrierLimitFromHopperOn) {
  KernelResources K;
  K.RegistersPerThread = 16;
  K.Barriers = 16; // named barriers 0..15: 32 slots × 2 / 16 = 4 blocks
  OccupancyResult R = computeOccupancy(sm90(), K, {64, 0, -1});
  EXPECT_EQ(R.BlocksByBarriers, 4);
  EXPECT_EQ(R.ActiveBlocksPerSM, 4);
  EXPECT_EQ(R.Limit, Limiter::Barriers);
  // Ampere has no barrier limit in the calculator.
  EXPECT_EQ(computeOccupancy(*cudaperf::support::findGpuArch(8, 0), K, {64, 0, -1}).ActiveBlocksPerSM, 32);
  K.Barriers = 0;
  EXPECT_EQ(computeOccupancy(sm90(), K, {64, 0, -1}).BlocksByBarriers, INT_MAX);
}

TEST(Occupancy, SharedMemorySuggestion) {
  KernelResources K;
  K.RegistersPerThread = 32;
  K.StaticSharedBytes = 40000; // + 1 KB -> 41,088: 5 blocks of 128 (20 warps)
  auto S = suggestRaise(sm90(), K, {128, 0, -1});
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Change, Limiter::SharedMemory);
  EXPECT_EQ(S->ActiveBlocksPerSM, 6);
  // 233,472 / 6 = 38,912 per block allocated, minus the 1 KB reservation.
  EXPECT_EQ(S->Value, 38912 - 1024);
}

TEST(Occupancy, Waves) {
  auto W = computeWaves(1000, 4, 132); // 528 per wave: 1.89 waves, last 472/528 full
  ASSERT_TRUE(W);
  EXPECT_EQ(W->BlocksPerWave, 528);
  EXPECT_EQ(W->FullWaves, 1);
  EXPECT_NEAR(W->LastWaveFraction, 472.0 / 528, 1e-12);
  EXPECT_NEAR(computeWaves(528, 4, 132)->LastWaveFraction, 1.0, 1e-12);
  EXPECT_FALSE(computeWaves(100, 0, 132));
}

TEST(Occupancy, TableRowsCoverBlockSizes) {
  KernelResources K;
  K.RegistersPerThread = 32;
  K.MaxThreadsPerBlock = 512;
  auto Rows = occupancyByBlockSize(sm90(), K, 0);
  ASSERT_EQ(Rows.size(), 16u);
  EXPECT_EQ(Rows.front().first, 32);
  EXPECT_EQ(Rows.back().first, 512);
}

// The sweep measured on the H200: every configuration must give exactly the driver's answer.
TEST(OccupancySweep, ReplaysH200MeasurementsExactly) {
  std::ifstream In(CUDAPERF_SOURCE_DIR "/data/measured/occupancy-sweep-h200.csv");
  if (!In)
    GTEST_SKIP() << "no sweep recorded yet";
  std::string Line;
  std::getline(In, Line);
  std::map<std::string, int> Col;
  {
    std::stringstream SS(Line);
    std::string Name;
    for (int I = 0; std::getline(SS, Name, ','); ++I)
      Col[Name] = I;
  }
  for (const char *Needed : {"cc", "registers", "static_smem", "max_threads", "max_dynamic_smem",
                             "barriers", "block", "dynamic_smem", "carveout", "status",
                             "driver_blocks"})
    ASSERT_TRUE(Col.count(Needed)) << "missing column " << Needed;
  int Rows = 0, Exact = 0;
  while (std::getline(In, Line)) {
    if (Line.empty() || Line[0] == '#')
      continue;
    std::vector<std::string> F;
    std::stringstream SS(Line);
    std::string Field;
    while (std::getline(SS, Field, ','))
      F.push_back(Field);
    ASSERT_GE(F.size(), Col.size()) << Line;
    if (F[Col["status"]] != "0")
      continue; // the driver refused: nothing to compare
    const ArchSpec *A = cudaperf::support::findGpuArch(F[Col["cc"]]);
    ASSERT_NE(A, nullptr) << Line;
    KernelResources K;
    K.RegistersPerThread = std::stoi(F[Col["registers"]]);
    K.StaticSharedBytes = std::stoi(F[Col["static_smem"]]);
    K.MaxThreadsPerBlock = std::stoi(F[Col["max_threads"]]);
    K.MaxDynamicSharedBytes = std::stoi(F[Col["max_dynamic_smem"]]);
    K.Barriers = std::max(1, std::stoi(F[Col["barriers"]]));
    LaunchShape L{std::stoi(F[Col["block"]]), std::stoi(F[Col["dynamic_smem"]]),
                  std::stoi(F[Col["carveout"]])};
    int Expected = std::stoi(F[Col["driver_blocks"]]);
    int Got = computeOccupancy(*A, K, L).ActiveBlocksPerSM;
    ++Rows;
    if (Got == Expected)
      ++Exact;
    else
      ADD_FAILURE() << "calculator " << Got << " vs driver " << Expected << ": " << Line;
  }
  EXPECT_GE(Rows, 1000);
  EXPECT_EQ(Exact, Rows);
}
