//===- KernelFactsTest.cpp - The typed resources/occupancy sections and their checks ------===//
//
// The wire format of ResourceFacts/OccupancyFacts (documents as cudaperf-analyze writes them read
// and written back identically), the field paths of fromJSON's errors, and the checks reading
// the fields fromJSON fills from the documented keys: a check reading another field than the
// writer fills, or a writer spelling a key differently from the reader, fails here.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"
#include "cudaperf/Report/KernelFacts.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

using namespace cudaperf;

namespace {

// As cudaperf-analyze --format=json writes them for test/Occupancy/tail-effect.cu (sm_90, nvcc),
// keys sorted as llvm::json prints them; the occupancy trimmed to three launch sites.
const char *NvccResources =
    R"({"arch":"sm_90","barriers":0,"cached":true,"compiler":"nvcc 13.0.88","constant_bytes":0,)"
    R"("local_bytes":0,"registers":30,"source":"nvcc","spill_load_bytes":0,"spill_store_bytes":0,)"
    R"("static_smem_bytes":0})";
const char *EstimatedResources =
    R"({"arch":"sm_80","barriers":1,"constant_bytes":0,"local_bytes":16,"registers":40,)"
    R"("source":"estimate","spill_load_bytes":0,"spill_store_bytes":0,"static_smem_bytes":4096})";
const char *TailOccupancy =
    R"({"active_blocks_per_sm":8,"active_warps_per_sm":64,"allocated_registers_per_block":8192,)"
    R"("allocated_smem_per_block":1024,"arch":"sm_90","block_size":256,"blocks_per_wave":1056,)"
    R"("device":"H200","dynamic_smem_bytes":0,"full_waves":1,"grid_blocks":1100,)"
    R"("last_wave_fraction":0.041666666666666664,"launch_origin":"launch-site","launch_sites":[)"
    R"({"active_blocks_per_sm":8,"block_size":256,"blocks_per_wave":1056,"column":3,)"
    R"("dynamic_smem_bytes":0,"grid_blocks":1100,"last_wave_fraction":0.041666666666666664,)"
    R"("line":21,"theoretical":1,"waves":1.0416666666666667},)"
    R"({"active_blocks_per_sm":8,"block_size":256,"blocks_per_wave":1056,"column":3,)"
    R"("dynamic_smem_bytes":0,"grid_blocks":2112,"last_wave_fraction":1,"line":24,)"
    R"("theoretical":1,"waves":2},)"
    R"({"active_blocks_per_sm":8,"block_size":256,"column":5,"dynamic_smem_bytes":0,)"
    R"("grid_blocks":0,"line":30,"theoretical":1}],)"
    R"("limiter":"registers","limits":{"barriers":64,"blocks":32,"registers":8,)"
    R"("shared_memory":228,"warps":8},"max_warps_per_sm":64,"registers":30,"sms":132,)"
    R"("static_smem_bytes":0,"theoretical":1,"waves":1.0416666666666667})";
// A register-limited kernel at 25% with the raise suggestion; no device, no grid.
const char *LowOccupancy =
    R"({"active_blocks_per_sm":1,"active_warps_per_sm":16,"allocated_registers_per_block":65536,)"
    R"("allocated_smem_per_block":1024,"arch":"sm_90","block_size":512,"dynamic_smem_bytes":0,)"
    R"("launch_origin":"assumed","limiter":"registers","limits":{"blocks":32,"registers":1,)"
    R"("warps":4},"max_warps_per_sm":64,"raise":{"active_blocks_per_sm":2,"change":"registers",)"
    R"("text":"cap the registers at 64 per thread","theoretical":0.5,"value":64},)"
    R"("registers":128,"static_smem_bytes":0,"theoretical":0.25})";

llvm::json::Value parse(const char *Text) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  if (!V) {
    ADD_FAILURE() << llvm::toString(V.takeError());
    return nullptr;
  }
  return std::move(*V);
}

template <typename Facts> Facts read(const char *Text) {
  llvm::json::Value V = parse(Text);
  Facts F;
  llvm::json::Path::Root Root;
  if (!fromJSON(V, F, Root)) {
    std::string Why;
    llvm::raw_string_ostream OS(Why);
    Root.printErrorContext(V, OS);
    ADD_FAILURE() << llvm::toString(Root.getError()) << "\n" << Why;
  }
  return F;
}

std::string print(llvm::json::Object O) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::json::Value(std::move(O));
  return S;
}

template <typename Facts> std::string fromJSONError(const char *Text) {
  llvm::json::Value V = parse(Text);
  Facts F;
  llvm::json::Path::Root Root;
  if (fromJSON(V, F, Root))
    return "";
  return llvm::toString(Root.getError());
}

std::vector<Diagnostic> runCheck(llvm::StringRef Name, const KernelReport &K) {
  std::vector<Diagnostic> Out;
  for (const auto &C : allChecks())
    if (C->info().Name == Name)
      C->run(K, Out);
  return Out;
}

KernelReport kernel() {
  KernelReport K;
  K.Name = "scale";
  K.Loc = {"k.cu", 3, 17};
  return K;
}

} // namespace

TEST(KernelFacts, AnalyzerDocumentsReadAndWriteBackIdentically) {
  for (const char *Text : {NvccResources, EstimatedResources})
    EXPECT_EQ(print(read<ResourceFacts>(Text).toJson()), Text);
  for (const char *Text : {TailOccupancy, LowOccupancy})
    EXPECT_EQ(print(read<OccupancyFacts>(Text).toJson()), Text);
}

TEST(KernelFacts, FieldsHoldTheDocumentedKeys) {
  ResourceFacts R = read<ResourceFacts>(NvccResources);
  EXPECT_EQ(R.Registers, 30);
  EXPECT_TRUE(R.fromCompiler());
  EXPECT_EQ(R.Compiler, "nvcc 13.0.88");
  EXPECT_FALSE(read<ResourceFacts>(EstimatedResources).fromCompiler());
  EXPECT_EQ(read<ResourceFacts>(EstimatedResources).StaticSmemBytes, 4096);

  OccupancyFacts O = read<OccupancyFacts>(TailOccupancy);
  EXPECT_EQ(O.ActiveBlocksPerSM, 8);
  EXPECT_EQ(O.SMs, 132);
  ASSERT_TRUE(O.Waves);
  EXPECT_EQ(O.GridBlocks, 1100);
  EXPECT_EQ(O.Waves->FullWaves, 1);
  EXPECT_EQ(O.Limits.SharedMemory, 228);
  ASSERT_EQ(O.LaunchSites.size(), 3u);
  EXPECT_EQ(O.LaunchSites[1].GridBlocks, 2112);
  EXPECT_FALSE(O.LaunchSites[2].Waves);
  EXPECT_FALSE(O.Raise);
  EXPECT_TRUE(O.Problem.empty());
  EXPECT_EQ(read<OccupancyFacts>(LowOccupancy).Raise->Value, 64);
}

TEST(KernelFacts, ErrorsNameTheFieldPath) {
  std::string E = fromJSONError<OccupancyFacts>(R"({"arch":"sm_90","block_size":"256"})");
  EXPECT_NE(E.find("block_size"), std::string::npos) << E;
  E = fromJSONError<ResourceFacts>(R"({"registers":30})");
  EXPECT_NE(E.find("spill_store_bytes"), std::string::npos) << E;
  // A compiler's report without its compiler.
  E = fromJSONError<ResourceFacts>(R"({"arch":"sm_90","barriers":0,"constant_bytes":0,)"
                                   R"("local_bytes":0,"registers":30,"source":"nvrtc",)"
                                   R"("spill_load_bytes":0,"spill_store_bytes":0,)"
                                   R"("static_smem_bytes":0})");
  EXPECT_NE(E.find("compiler"), std::string::npos) << E;
  EXPECT_NE(fromJSONError<OccupancyFacts>(R"([1,2])"), "");
}

TEST(KernelFacts, LowOccupancyReadsTheWrittenFields) {
  KernelReport K = kernel();
  EXPECT_TRUE(runCheck("cuda-low-occupancy", K).empty()); // no section: silent
  K.Occupancy = read<OccupancyFacts>(LowOccupancy);
  std::vector<Diagnostic> D = runCheck("cuda-low-occupancy", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Message,
            "theoretical occupancy of 'scale' is 25% (16 of 64 warps per SM on sm_90, blocks of 512 "
            "threads (assumed; no launch was found)), limited by registers: cap the registers at "
            "64 per thread");
  K.Occupancy->ActiveBlocksPerSM = 0;
  K.Occupancy->Problem = "the block needs 131072 registers";
  D = runCheck("cuda-low-occupancy", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Level, Severity::Error);
  EXPECT_NE(D[0].Message.find("the block needs 131072 registers"), std::string::npos);
  K.Occupancy = read<OccupancyFacts>(TailOccupancy); // 100%
  EXPECT_TRUE(runCheck("cuda-low-occupancy", K).empty());
}

TEST(KernelFacts, TailEffectReadsTheWrittenSites) {
  KernelReport K = kernel();
  K.Occupancy = read<OccupancyFacts>(TailOccupancy);
  std::vector<Diagnostic> D = runCheck("cuda-tail-effect", K);
  // Line 21: 1.04 waves, the last 4% full; line 24: two whole waves; line 30: no waves.
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Loc.Line, 21u);
  EXPECT_EQ(D[0].Message,
            "grid of 1100 blocks of 'scale' runs in 1.04 waves of 1056; the last is 4% full (8 "
            "blocks per SM x 132 SMs of H200); a grid of whole waves (a multiple of 1056 blocks, "
            "e.g. a grid-stride loop over 1056) keeps every SM busy");
  // Without sites: the kernel's resolved launch, at the kernel.
  K.Occupancy->LaunchSites.clear();
  D = runCheck("cuda-tail-effect", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Loc.Line, 3u);
  K.Occupancy->Waves.reset();
  EXPECT_TRUE(runCheck("cuda-tail-effect", K).empty());
}

TEST(KernelFacts, RegisterSpillsReadTheCompilersReport) {
  KernelReport K = kernel();
  K.Resources = read<ResourceFacts>(NvccResources);
  EXPECT_TRUE(runCheck("cuda-register-spills", K).empty()); // no spills
  K.Resources->SpillStoreBytes = 16;
  K.Resources->SpillLoadBytes = 8;
  std::vector<Diagnostic> D = runCheck("cuda-register-spills", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_NE(D[0].Message.find("on sm_90: 16 bytes of spill stores and 8 bytes of spill loads per "
                              "thread at 30 registers"),
            std::string::npos)
      << D[0].Message;
  // The estimate cannot see spills.
  K.Resources->Source = "estimate";
  EXPECT_TRUE(runCheck("cuda-register-spills", K).empty());
}
