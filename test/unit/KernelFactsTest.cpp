//===- KernelFactsTest.cpp - The typed resources/occupancy/work sections and their checks -===//
//
// The wire format of ResourceFacts/OccupancyFacts/WorkFacts (documents as cudaperf-analyze writes them read
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

// The work sections (WorkFacts) of two analyzer documents, keys sorted: matmulNaive of
// test/Work/low-intensity.cu (sm_90 default, built-in headers), every count known, and the
// kernel of test/reward/golden/ok_pytorch/analysis.json, whose grid and trip counts are unknown
// (nulls, per_thread_expr, special_functions, notes, a roofline without times).
const char *MatmulWork =
    R"J({"arithmetic_intensity":85.333,"arrays":[{"array":"c","dram_read_bytes_estimate":0,"dram)J"
    R"J(_write_bytes_estimate":1048576,"range_known":true},{"array":"a","column":12,"dram_read_b)J"
    R"J(ytes_estimate":1048576,"dram_write_bytes_estimate":0,"global_load_bytes":536870912,"line)J"
    R"J(":11,"range_known":true,"reuse_factor":512,"staged_in_shared":false},{"array":"b","colum)J"
    R"J(n":29,"dram_read_bytes_estimate":1048576,"dram_write_bytes_estimate":0,"global_load_byte)J"
    R"J(s":536870912,"line":11,"range_known":true,"reuse_factor":512,"staged_in_shared":false}],)J"
    R"J("bound":"compute","dram_read_bytes_estimate":2097152,"dram_write_bytes_estimate":1048576)J"
    R"J(,"dram_write_bytes_estimate_atomic":0,"flops":{"fp32":{"add":0,"division":0,"fma":134217)J"
    R"J(728,"library":0,"mul":0,"special":0,"sqrt":0,"total":268435456},"library":0,"per_thread")J"
    R"J(:1024,"tensor":0,"total":268435456},"global_load_bytes":1073741824,"global_load_sectors")J"
    R"J(:20971520,"global_sectors":21004288,"global_store_bytes":1048576,"global_store_sectors":)J"
    R"J(32768,"int_ops":270008320,"l2_arithmetic_intensity":0.399,"loops":[{"depth":1,"line":11,)J"
    R"J("trip_count_expr":"1 + (-1 + (zext i32 n to i64))<nsw>","trip_count_known":true}],"roofl)J"
    R"J(ine":{"bandwidth_source":"measured","compute_time_us":4.006,"device":"H200","dram_bytes_)J"
    R"J(per_second":4300000000000,"memory_time_us":0.732,"ridge_fp32_flop_per_byte":15.58},"roof)J"
    R"J(line_time_us":4.006,"sass_fp_instructions":{"fadd":0,"ffma":134217728,"fmul":0},"shared_)J"
    R"J(bytes":0,"threads":262144})J";
const char *UnknownGridWork =
    R"J({"arithmetic_intensity":null,"arrays":[{"array":"x","column":10,"dram_read_bytes_estimat)J"
    R"J(e":null,"dram_write_bytes_estimate":null,"global_load_bytes":null,"line":29,"range_known)J"
    R"J(":false,"staged_in_shared":false},{"array":"weight","column":37,"dram_read_bytes_estimat)J"
    R"J(e":null,"dram_write_bytes_estimate":null,"global_load_bytes":null,"line":38,"range_known)J"
    R"J(":false,"staged_in_shared":false},{"array":"bias","column":49,"dram_read_bytes_estimate")J"
    R"J(:null,"dram_write_bytes_estimate":null,"global_load_bytes":null,"line":38,"range_known":)J"
    R"J(false,"staged_in_shared":false},{"array":"out","dram_read_bytes_estimate":null,"dram_wri)J"
    R"J(te_bytes_estimate":null,"range_known":false}],"bound":null,"dram_read_bytes_estimate":nu)J"
    R"J(ll,"dram_write_bytes_estimate":null,"dram_write_bytes_estimate_atomic":null,"flops":{"fp)J"
    R"J(32":{"add":null,"division":null,"fma":null,"library":null,"mul":null,"special":null,"sqr)J"
    R"J(t":null,"total":null},"library":null,"per_thread":null,"per_thread_expr":"21 + 8 * (1 + )J"
    R"J(((-1 + (sext i32 hidden to i64) + (-1 * (sext i32 %12 to i64))<nsw>) /u 256))","special_)J"
    R"J(functions":{"__nv_rsqrtf":null,"fdiv.f32":null},"tensor":null,"total":null},"global_load)J"
    R"J(_bytes":null,"global_load_sectors":null,"global_sectors":null,"global_store_bytes":null,)J"
    R"J("global_store_sectors":null,"int_ops":null,"loops":[{"depth":1,"line":29,"trip_count_exp)J"
    R"J(r":"1 + ((-1 + (sext i32 hidden to i64) + (-1 * (sext i32 %12 to i64))<nsw>) /u 256)","t)J"
    R"J(rip_count_known":false},{"depth":1,"line":33,"trip_count_expr":"1 + ((-1 + (sext i32 hid)J"
    R"J(den to i64) + (-1 * (sext i32 %12 to i64))<nsw>) /u 256)","trip_count_known":false},{"de)J"
    R"J(pth":1,"line":38,"trip_count_expr":"1 + ((-1 + (sext i32 hidden to i64) + (-1 * (sext i3)J"
    R"J(2 %12 to i64))<nsw>) /u 256)","trip_count_known":false}],"notes":["grid unknown: per-lau)J"
    R"J(nch totals need the grid (a constant launch site or --launch); per-thread values use a r)J"
    R"J(epresentative grid","a loop's trip count depends on unknown values: give them with --par)J"
    R"J(am KERNEL:NAME=VALUE (see flops.per_thread_expr)"],"roofline":{"bandwidth_source":"measu)J"
    R"J(red","device":"H200","dram_bytes_per_second":4300000000000},"roofline_time_us":null,"sas)J"
    R"J(s_fp_instructions":{"fadd":null,"ffma":null,"fmul":null},"shared_bytes":null,"threads":n)J"
    R"J(ull})J";

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

// The analyzer's documents print floating-point values with 17 digits: compare with the same
// printer (the values and keys come from the documents above).
std::string printed(const char *Text) { return print(*parse(Text).getAsObject()); }

TEST(KernelFacts, WorkDocumentsReadAndWriteBackIdentically) {
  for (const char *Text : {MatmulWork, UnknownGridWork})
    EXPECT_EQ(print(read<WorkFacts>(Text).toJson()), printed(Text));
  EXPECT_EQ(print(sectionToJson(std::optional<WorkFacts>())), "{}"); // no device code
}

TEST(KernelFacts, WorkFieldsHoldTheDocumentedKeys) {
  WorkFacts W = read<WorkFacts>(MatmulWork);
  EXPECT_EQ(W.Threads, 262144);
  EXPECT_EQ(W.Flops.Total, 268435456);
  ASSERT_EQ(W.Flops.ByPrecision.count("fp32"), 1u);
  EXPECT_EQ(W.Flops.ByPrecision["fp32"].Fma, 134217728);
  EXPECT_EQ(W.SassFpInstructions["ffma"], 134217728);
  EXPECT_EQ(W.L2ArithmeticIntensity, 0.399);
  EXPECT_EQ(W.RooflineTimeUs, 4.006);
  EXPECT_EQ(W.Bound, "compute");
  ASSERT_TRUE(W.Roofline && W.Roofline->Times);
  EXPECT_EQ(W.Roofline->Times->RidgeFp32FlopPerByte, 15.58);
  ASSERT_EQ(W.Arrays.size(), 3u);
  EXPECT_FALSE(W.Arrays[0].Loads); // c: stores only
  ASSERT_TRUE(W.Arrays[1].Loads);
  EXPECT_EQ(W.Arrays[1].Loads->ReuseFactor, 512);
  EXPECT_EQ(W.Arrays[1].Loads->Column, 12);
  ASSERT_EQ(W.Loops.size(), 1u);
  EXPECT_TRUE(W.Loops[0].TripCountKnown);
  EXPECT_TRUE(W.Notes.empty());

  WorkFacts U = read<WorkFacts>(UnknownGridWork);
  EXPECT_FALSE(U.Threads);
  EXPECT_FALSE(U.Bound);
  EXPECT_FALSE(U.RooflineTimeUs);
  EXPECT_FALSE(U.L2ArithmeticIntensity);
  ASSERT_TRUE(U.Roofline);
  EXPECT_FALSE(U.Roofline->Times);
  ASSERT_TRUE(U.Flops.SpecialFunctions);
  EXPECT_EQ(U.Flops.SpecialFunctions->count("__nv_rsqrtf"), 1u);
  EXPECT_TRUE(U.Flops.PerThreadExpr);
  EXPECT_EQ(U.Notes.size(), 2u);
}

TEST(KernelFacts, WorkErrorsNameTheFieldPath) {
  // A count must be present (null where unknown), a number.
  std::string E = fromJSONError<WorkFacts>(R"({"threads":null})");
  EXPECT_NE(E.find("int_ops"), std::string::npos) << E;
  std::string Doc = printed(MatmulWork);
  auto Without = [&](const std::string &From, const std::string &To) {
    std::string D = Doc;
    size_t At = D.find(From);
    EXPECT_NE(At, std::string::npos) << From;
    return At == std::string::npos ? D : D.replace(At, From.size(), To);
  };
  std::string Bad = Without(R"("fma":134217728)", R"("fma":"many")");
  E = fromJSONError<WorkFacts>(Bad.c_str());
  EXPECT_NE(E.find("flops.fp32.fma"), std::string::npos) << E;
  Bad = Without(R"("reuse_factor":512)", R"("reuse_factor":[512])");
  E = fromJSONError<WorkFacts>(Bad.c_str());
  EXPECT_NE(E.find("arrays[1].reuse_factor"), std::string::npos) << E;
  Bad = Without(R"("memory_time_us")", R"("memory_time")");
  E = fromJSONError<WorkFacts>(Bad.c_str());
  EXPECT_NE(E.find("roofline.memory_time_us"), std::string::npos) << E;
  EXPECT_NE(fromJSONError<WorkFacts>(R"("work")"), "");
}

TEST(KernelFacts, LowIntensityReadsTheWorkFields) {
  KernelReport K = kernel();
  K.Name = "matmulNaive";
  EXPECT_TRUE(runCheck("cuda-low-intensity", K).empty()); // no section: silent
  K.Work = read<WorkFacts>(MatmulWork);
  std::vector<Diagnostic> D = runCheck("cuda-low-intensity", K);
  ASSERT_EQ(D.size(), 2u);
  EXPECT_EQ(D[0].Loc.Line, 11u);
  EXPECT_EQ(D[0].Loc.Column, 12u);
  EXPECT_EQ(D[0].Message,
            "'a' is requested 512 times per distinct byte (536.9 MB of loads for 1.0 MB of data) "
            "straight from global memory, and 'matmulNaive' does 0.40 FLOP per byte moved through "
            "L1/L2, below the H200 ridge point of 15.6 FLOP/byte; load each reused tile once into "
            "__shared__ memory (or registers) and reuse it");
  EXPECT_EQ(D[1].Loc.Column, 29u);
  // Memory-bound on the DRAM roofline, without the L2 figure.
  K.Work->L2ArithmeticIntensity.reset();
  K.Work->Bound = "memory";
  D = runCheck("cuda-low-intensity", K);
  ASSERT_EQ(D.size(), 2u);
  EXPECT_NE(D[0].Message.find("'matmulNaive' is memory-bound on its DRAM roofline; load"),
            std::string::npos)
      << D[0].Message;
  K.Work->Arrays[1].Loads->StagedInShared = true; // staged: only b
  EXPECT_EQ(runCheck("cuda-low-intensity", K).size(), 1u);
  K.Work->Bound = "compute"; // neither bound
  EXPECT_TRUE(runCheck("cuda-low-intensity", K).empty());
}

TEST(KernelFacts, TailEffectAndUncoalescedReadTheRoofline) {
  KernelReport K = kernel();
  K.Occupancy = read<OccupancyFacts>(TailOccupancy);
  K.Work = read<WorkFacts>(MatmulWork); // 4.006 us modelled: 4.006 x 1100/1100 < 5 us
  EXPECT_TRUE(runCheck("cuda-tail-effect", K).empty());
  K.Work->RooflineTimeUs = 50.0;
  EXPECT_EQ(runCheck("cuda-tail-effect", K).size(), 1u);

  // An access 4x the ideal sectors: the saving is its excess bytes at the roofline's bandwidth.
  MemoryAccess A;
  A.Loc = {"k.cu", 9, 5};
  A.Space = "global";
  A.Op = "load";
  A.Bytes = 4;
  A.Pattern = "strided";
  A.SectorsPerRequest = 16;
  A.Extra["ideal_sectors_per_request"] = 4;
  A.Extra["lane_executions"] = 1048576;
  K.Accesses.push_back(A);
  std::vector<Diagnostic> D = runCheck("cuda-uncoalesced-access", K);
  ASSERT_EQ(D.size(), 1u);
  ASSERT_TRUE(D[0].EstimatedSavingUs);
  EXPECT_NEAR(*D[0].EstimatedSavingUs, 12.0 * 32768 * 32 / 4.3e12 * 1e6, 1e-9);
  K.Work->Roofline.reset();
  D = runCheck("cuda-uncoalesced-access", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_FALSE(D[0].EstimatedSavingUs);
}
