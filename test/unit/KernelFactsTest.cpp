//===- KernelFactsTest.cpp - The typed per-kernel sections and their checks ---------------===//
//
// The wire format of MemoryAccess/SyncFacts/ResourceFacts/OccupancyFacts/WorkFacts and of the
// kernel's analysis_faults and coalescing_efficiency (documents as cudaperf-analyze writes them
// read and written back identically), the field paths of fromJSON's errors, and the checks reading
// the fields fromJSON fills from the documented keys: a check reading another field than the
// writer fills, or a writer spelling a key differently from the reader, fails here.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"
#include "cudaperf/Report/KernelFacts.h"
#include "cudaperf/Report/Writers.h"
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
  A.IdealSectorsPerRequest = 4;
  A.LaneExecutions = 1048576.0;
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

// ---- accesses and sync ----

namespace {

// As cudaperf-analyze --format=json --cuda-headers=builtin writes them (sm_90), keys sorted.
// matmulTiled of data/tasks/matmul/impls/tiled.cu, line 20: a global load whose stride
// depends on K (worst case shown, the typical value kept), its trip count unknown.
const char *ParamDependentAccess =
    R"J({"address":"{{((4 * (zext i4 (trunc i32 threadIdx.x to i4) to i64))<nuw><nsw> + (4 * (ze)J"
    R"J(xt i32 K to i64) * ((64 * (zext i32 blockIdx.y to i64))<nuw><nsw> + ((zext i32 threadIdx)J"
    R"J(.x to i64) /u 16)))),+,64}<%3>,+,(64 * (zext i32 K to i64))<nuw><nsw>}<%5>","bank_confli)J"
    R"J(ct_ways":null,"base":"parameter A","bytes":4,"column":39,"executions_per_thread":null,"e)J"
    R"J(xecutions_per_thread_expr":"(1 + ((255 + (-1 * (zext i32 threadIdx.x to i64))<nsw> + (76)J"
    R"J(8 umax (zext i32 threadIdx.x to i64))) /u 256)) * (1 + ((-1 + (zext i32 K to i64))<nsw> )J"
    R"J(/u 16))","file":"data/tasks/matmul/impls/tiled.cu","ideal_sectors_per_request":4,"lane_e)J"
    R"J(xecutions":null,"line":20,"loop_depth":2,"misalignment_bytes":0,"notes":["the stride bet)J"
    R"J(ween lanes depends on 'K', whose value is unknown: worst case over representative values)J"
    R"J( shown; give the value with --param KERNEL:NAME=VALUE"],"op":"load","pattern":"parameter)J"
    R"J(-dependent","sectors_per_request":5.75,"sectors_per_request_typical":4,"space":"global",)J"
    R"J("thread_coefficients":null,"unknown_params":["K"]})J";
// conv2d_3x3 of data/corpus/compute_conv.cu, line 12: misaligned, with lane executions and the
// launch's average sectors.
const char *MisalignedAccess =
    R"J({"address":"(-4 + (4 * (zext i32 ((blockIdx.x * blockDim.x) + threadIdx.x) to i64))<nuw>)J"
    R"J(<nsw> + (4 * (sext i32 n to i64) * (-1 + (zext i32 threadIdx.y to i64) + ((zext i32 bloc)J"
    R"J(kIdx.y to i64) * (zext i32 blockDim.y to i64))<nuw>)))","bank_conflict_ways":null,"base")J"
    R"J(:"parameter img","bytes":4,"column":44,"executions_per_thread":1,"file":"data/corpus/com)J"
    R"J(pute_conv.cu","ideal_sectors_per_request":4,"lane_executions":4186116,"launch_sectors_pe)J"
    R"J(r_request":4.98,"line":12,"loop_depth":0,"misalignment_bytes":28,"op":"load","pattern":")J"
    R"J(misaligned","sectors_per_request":5,"space":"global","stride_bytes":4,"stride_elements":)J"
    R"J(1,"thread_coefficients":{"x":4,"y":8192,"z":0}})J";
// gemm_regtile_f32 of data/corpus/compute_gemm.cu, line 44: a 16-way conflict on as[16][64].
const char *BankConflictAccess =
    R"J({"address":"{((4 * ((zext i32 ((16 * threadIdx.y)<nuw><nsw> + threadIdx.x) to i64) /u 16)J"
    R"J())<nuw><nsw> + (256 * (zext i4 (trunc i32 threadIdx.x to i4) to i64))<nuw><nsw>),+,64}<%)J"
    R"J(7>","array":"as","array_dims":[16,64],"bank_conflict_ways":16,"bytes":4,"column":16,"ele)J"
    R"J(ment_bytes":4,"executions_per_thread":256,"file":"data/corpus/compute_gemm.cu","ideal_wa)J"
    R"J(vefronts":1,"line":44,"op":"store","pattern":"bank-conflict","sectors_per_request":null,)J"
    R"J("space":"shared","stride_bytes":256,"thread_coefficients":{"x":256,"y":4,"z":0}})J";
// reduce_sum of data/corpus/global_real.cu, line 53: a shared load the evaluator cannot follow.
const char *UnknownAccess =
    R"J({"address":"(4 * (zext i32 (v12 + threadIdx.x) to i64))<nuw><nsw>","array":"s","array_di)J"
    R"J(ms":[256],"bank_conflict_ways":null,"bytes":4,"column":33,"element_bytes":4,"executions_)J"
    R"J(per_thread":8,"file":"data/corpus/global_real.cu","line":53,"op":"load","pattern":"unkno)J"
    R"J(wn","sectors_per_request":null,"space":"shared","stride_bytes":4,"thread_coefficients":{)J"
    R"J("x":4,"y":0,"z":0},"unknown_loop_line":52,"unknown_reason":"a loop variable changes by s)J"
    R"J(omething other than a constant step each iteration (multiplied, shifted or divided, e.g.)J"
    R"J( stride *= 2): its value per iteration is not modelled"})J";
// The sync sections of test/Synchronization: divergent-barrier.cu threadDependentTripCount
// (a divergent barrier with its condition, a write-after-read hazard), shared-war-hazard.cu
// rowTileNoBarrier (an unknown trip count and its note), missing-barrier.cu neighbourRead,
// redundant-barrier.cu doubleBarrier, contended-atomic.cu sumEveryElement and intCounter, and
// sync-json.cu warpSum (warp primitives, atomics by class).
const char *WarHazardSync =
    R"J({"atomic_sites":[],"atomics":{},"barrier_sites":[{"column":5,"divergent":true,"execution)J"
    R"J(s_per_thread":10,"in_loop":true,"line":40}],"barriers":1,"barriers_in_loops":1,"barriers)J"
    R"J(_per_thread":10,"divergent_barrier_sites":[{"column":5,"condition":{"column":3,"line":38)J"
    R"J(},"line":40}],"divergent_barriers":1,"missing_barrier_sites":[],"redundant_barrier_sites)J"
    R"J(":[],"war_hazard_sites":[{"column":12,"line":42,"loop":{"column":3,"line":38},"reader_th)J"
    R"J(read":"(255)","write":{"column":20,"line":39},"writer_thread":"(0)"}],"warp_primitives":)J"
    R"J([]})J";
const char *UnknownTripSync =
    R"J({"atomic_sites":[],"atomics":{},"barrier_sites":[{"column":5,"executions_per_thread":nul)J"
    R"J(l,"in_loop":true,"line":56}],"barriers":1,"barriers_in_loops":1,"barriers_per_thread":nu)J"
    R"J(ll,"barriers_per_thread_note":"executions per thread (1 + (-1 + (zext i32 tiles to i64)))J"
    R"J(<nsw>)","divergent_barrier_sites":[],"divergent_barriers":0,"missing_barrier_sites":[],")J"
    R"J(redundant_barrier_sites":[],"war_hazard_sites":[{"column":14,"line":58,"loop":{"column":)J"
    R"J(3,"line":54},"reader_thread":"(255)","write":{"column":23,"line":55},"writer_thread":"(0)J"
    R"J()"}],"warp_primitives":[]})J";
const char *MissingBarrierSync =
    R"J({"atomic_sites":[],"atomics":{},"barrier_sites":[],"barriers":0,"barriers_in_loops":0,"b)J"
    R"J(arriers_per_thread":0,"divergent_barrier_sites":[],"divergent_barriers":0,"missing_barri)J"
    R"J(er_sites":[{"column":22,"line":10,"reader_thread":"(0)","write":{"column":18,"line":9},")J"
    R"J(writer_thread":"(1)"}],"redundant_barrier_sites":[],"war_hazard_sites":[],"warp_primitiv)J"
    R"J(es":[]})J";
const char *RedundantBarrierSync =
    R"J({"atomic_sites":[],"atomics":{},"barrier_sites":[{"column":3,"executions_per_thread":1,")J"
    R"J(in_loop":false,"line":6},{"column":3,"executions_per_thread":1,"in_loop":false,"line":7,)J"
    R"J("redundant":true}],"barriers":2,"barriers_in_loops":0,"barriers_per_thread":2,"divergent)J"
    R"J(_barrier_sites":[],"divergent_barriers":0,"missing_barrier_sites":[],"redundant_barrier_)J"
    R"J(sites":[{"column":3,"line":7}],"war_hazard_sites":[],"warp_primitives":[]})J";
const char *ContendedAtomicSync =
    R"J({"atomic_sites":[{"column":5,"executions_per_thread":1,"grid_blocks":4096,"lanes_per_add)J"
    R"J(ress":32,"line":12,"shared_across_blocks":true,"space":"global","threads_per_address":25)J"
    R"J(6}],"atomics":{"global":{"same-address":1}},"barrier_sites":[],"barriers":0,"barriers_in)J"
    R"J(_loops":0,"barriers_per_thread":0,"divergent_barrier_sites":[],"divergent_barriers":0,"m)J"
    R"J(issing_barrier_sites":[],"redundant_barrier_sites":[],"war_hazard_sites":[],"warp_primit)J"
    R"J(ives":[]})J";
const char *AggregatedAtomicSync =
    R"J({"atomic_sites":[{"column":5,"compiler_aggregates_warp":true,"executions_per_thread":1,")J"
    R"J(lanes_per_address":32,"line":50,"shared_across_blocks":true,"space":"global","threads_pe)J"
    R"J(r_address":256}],"atomics":{"global":{"same-address":1}},"barrier_sites":[],"barriers":0)J"
    R"J(,"barriers_in_loops":0,"barriers_per_thread":0,"divergent_barrier_sites":[],"divergent_b)J"
    R"J(arriers":0,"missing_barrier_sites":[],"redundant_barrier_sites":[],"war_hazard_sites":[])J"
    R"J(,"warp_primitives":[]})J";
const char *WarpPrimitivesSync =
    R"J({"atomic_sites":[{"column":3,"executions_per_thread":1,"grid_blocks":64,"lanes_per_addre)J"
    R"J(ss":1,"line":30,"shared_across_blocks":true,"space":"global","threads_per_address":1}],")J"
    R"J(atomics":{"global":{"data-dependent":1,"distinct-per-lane":1}},"barrier_sites":[],"barri)J"
    R"J(ers":0,"barriers_in_loops":0,"barriers_per_thread":0,"divergent_barrier_sites":[],"diver)J"
    R"J(gent_barriers":0,"missing_barrier_sites":[],"redundant_barrier_sites":[],"war_hazard_sit)J"
    R"J(es":[],"warp_primitives":["ballot_sync","shfl_sync","syncwarp"]})J";

template <typename Facts> std::string roundTrip(const char *Text) {
  return print(read<Facts>(Text).toJson());
}

/// \p Text with its first \p From replaced by \p To.
std::string replaced(const char *Text, const std::string &From, const std::string &To) {
  std::string D = printed(Text);
  size_t At = D.find(From);
  EXPECT_NE(At, std::string::npos) << From;
  return At == std::string::npos ? D : D.replace(At, From.size(), To);
}

} // namespace

TEST(KernelFacts, AccessDocumentsReadAndWriteBackIdentically) {
  for (const char *Text : {ParamDependentAccess, MisalignedAccess, BankConflictAccess, UnknownAccess})
    EXPECT_EQ(roundTrip<MemoryAccess>(Text), printed(Text));
  // An access no analysis annotated writes the listed keys only.
  MemoryAccess A;
  A.Space = "local";
  A.Op = "load";
  EXPECT_EQ(print(A.toJson()), R"({"bank_conflict_ways":null,"bytes":0,"column":0,"line":0,)"
                               R"("op":"load","pattern":"","sectors_per_request":null,)"
                               R"("space":"local"})");
}

TEST(KernelFacts, SyncDocumentsReadAndWriteBackIdentically) {
  for (const char *Text : {WarHazardSync, UnknownTripSync, MissingBarrierSync, RedundantBarrierSync,
                           ContendedAtomicSync, AggregatedAtomicSync, WarpPrimitivesSync})
    EXPECT_EQ(roundTrip<SyncFacts>(Text), printed(Text));
  EXPECT_EQ(print(sectionToJson(std::optional<SyncFacts>())), "{}"); // not analysed
}

TEST(KernelFacts, AccessAndSyncFieldsHoldTheDocumentedKeys) {
  MemoryAccess P = read<MemoryAccess>(ParamDependentAccess);
  EXPECT_EQ(P.Loc.File, "data/tasks/matmul/impls/tiled.cu");
  EXPECT_EQ(P.Loc.Line, 20u);
  ASSERT_TRUE(P.ExecutionsPerThread); // written, as null
  EXPECT_FALSE(*P.ExecutionsPerThread);
  EXPECT_FALSE(P.knownExecutionsPerThread());
  EXPECT_TRUE(P.ExecutionsPerThreadExpr);
  ASSERT_TRUE(P.Coefficients);
  EXPECT_FALSE(*P.Coefficients); // not affine
  EXPECT_EQ(P.UnknownParams, std::vector<std::string>{"K"});
  EXPECT_EQ(P.SectorsPerRequestTypical, 4.0);
  EXPECT_EQ(P.SectorsPerRequest, 5.75);
  EXPECT_EQ(P.LoopDepth, 2);
  EXPECT_FALSE(P.StrideBytes);
  EXPECT_EQ(P.Notes.size(), 1u);

  MemoryAccess M = read<MemoryAccess>(MisalignedAccess);
  EXPECT_EQ(M.knownExecutionsPerThread(), 1);
  ASSERT_TRUE(M.LaneExecutions && *M.LaneExecutions);
  EXPECT_EQ(**M.LaneExecutions, 4186116.0);
  EXPECT_EQ(M.LaunchSectorsPerRequest, 4.98);
  EXPECT_EQ(M.MisalignmentBytes, 28);
  ASSERT_TRUE(M.Coefficients && *M.Coefficients);
  EXPECT_EQ((*M.Coefficients)->Y, 8192);
  EXPECT_EQ(M.StrideElements, 1.0);
  EXPECT_TRUE(M.Notes.empty());

  MemoryAccess B = read<MemoryAccess>(BankConflictAccess);
  EXPECT_EQ(B.Array, "as");
  EXPECT_EQ(B.ArrayDims, (std::vector<int64_t>{16, 64}));
  EXPECT_EQ(B.ElementBytes, 4);
  EXPECT_EQ(B.IdealWavefronts, 1.0);
  EXPECT_EQ(B.BankConflictWays, 16.0);
  EXPECT_FALSE(B.LaneExecutions); // not written for shared accesses
  EXPECT_FALSE(B.Base);

  MemoryAccess U = read<MemoryAccess>(UnknownAccess);
  EXPECT_EQ(U.UnknownLoopLine, 52);
  ASSERT_TRUE(U.UnknownReason);
  EXPECT_EQ(U.UnknownReason->rfind("a loop variable changes", 0), 0u);

  SyncFacts W = read<SyncFacts>(WarHazardSync);
  EXPECT_EQ(W.Barriers, 1);
  EXPECT_EQ(W.BarriersPerThread, 10);
  ASSERT_EQ(W.BarrierSites.size(), 1u);
  EXPECT_TRUE(W.BarrierSites[0].Divergent);
  EXPECT_FALSE(W.BarrierSites[0].Redundant);
  ASSERT_EQ(W.DivergentBarrierSites.size(), 1u);
  ASSERT_TRUE(W.DivergentBarrierSites[0].Condition);
  EXPECT_EQ(W.DivergentBarrierSites[0].Condition->Line, 38);
  ASSERT_EQ(W.WarHazardSites.size(), 1u);
  EXPECT_EQ(W.WarHazardSites[0].Loop.Line, 38);
  EXPECT_EQ(W.WarHazardSites[0].Write.Column, 20);
  EXPECT_EQ(W.WarHazardSites[0].ReaderThread, "(255)");

  SyncFacts T = read<SyncFacts>(UnknownTripSync);
  EXPECT_FALSE(T.BarriersPerThread);
  EXPECT_TRUE(T.BarriersPerThreadNote);
  EXPECT_FALSE(T.BarrierSites[0].ExecutionsPerThread);

  SyncFacts A = read<SyncFacts>(AggregatedAtomicSync);
  ASSERT_EQ(A.AtomicSites.size(), 1u);
  EXPECT_TRUE(A.AtomicSites[0].CompilerAggregatesWarp);
  EXPECT_FALSE(A.AtomicSites[0].GridBlocks);
  EXPECT_EQ(read<SyncFacts>(ContendedAtomicSync).AtomicSites[0].GridBlocks, 4096);

  SyncFacts P2 = read<SyncFacts>(WarpPrimitivesSync);
  EXPECT_EQ(P2.WarpPrimitives, (std::vector<std::string>{"ballot_sync", "shfl_sync", "syncwarp"}));
  EXPECT_EQ(P2.Atomics["global"]["distinct-per-lane"], 1);
  EXPECT_EQ(read<SyncFacts>(RedundantBarrierSync).RedundantBarrierSites.at(0).Line, 7);
  EXPECT_EQ(read<SyncFacts>(MissingBarrierSync).MissingBarrierSites.at(0).Write.Line, 9);
}

TEST(KernelFacts, AccessAndSyncErrorsNameTheFieldPath) {
  auto accessError = [](const std::string &Doc) { return fromJSONError<MemoryAccess>(Doc.c_str()); };
  auto syncError = [](const std::string &Doc) { return fromJSONError<SyncFacts>(Doc.c_str()); };
  std::string E = accessError(replaced(MisalignedAccess, R"("z":0)", R"("w":0)"));
  EXPECT_NE(E.find("thread_coefficients.z"), std::string::npos) << E;
  E = accessError(replaced(BankConflictAccess, R"("array_dims":[16,64])", R"("array_dims":[16,"64"])"));
  EXPECT_NE(E.find("array_dims[1]"), std::string::npos) << E;
  E = accessError(replaced(MisalignedAccess, R"("line":12)", R"("line":-12)"));
  EXPECT_NE(E.find("line"), std::string::npos) << E;
  E = accessError(replaced(MisalignedAccess, R"("lane_executions":4186116)", R"("lane_executions":"4186116")"));
  EXPECT_NE(E.find("lane_executions"), std::string::npos) << E;
  E = accessError(replaced(UnknownAccess, R"("pattern":"unknown",)", ""));
  EXPECT_NE(E.find("pattern"), std::string::npos) << E;
  EXPECT_NE(accessError("[]"), "");

  E = syncError(replaced(WarHazardSync, R"("loop":{"column":3,"line":38})", R"("loop":{"column":3,"line":"38"})"));
  EXPECT_NE(E.find("war_hazard_sites[0].loop.line"), std::string::npos) << E;
  E = syncError(replaced(ContendedAtomicSync, R"("atomic_sites":)", R"("atomic_site":)"));
  EXPECT_NE(E.find("atomic_sites"), std::string::npos) << E;
  E = syncError(replaced(WarHazardSync, R"("condition":{"column":3,"line":38})", R"("condition":3)"));
  EXPECT_NE(E.find("divergent_barrier_sites[0].condition"), std::string::npos) << E;
  E = syncError(replaced(WarpPrimitivesSync, R"("distinct-per-lane":1)", R"("distinct-per-lane":1.5)"));
  EXPECT_NE(E.find("atomics.global.distinct-per-lane"), std::string::npos) << E;
}

TEST(KernelFacts, AccessChecksReadTheAccessFields) {
  KernelReport K = kernel();
  K.Name = "matmulTiled";
  K.Accesses.push_back(read<MemoryAccess>(ParamDependentAccess));
  std::vector<Diagnostic> D = runCheck("cuda-uncoalesced-access", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Loc.Line, 20u);
  EXPECT_EQ(D[0].Message,
            "global load of 4-byte elements may touch up to 5.75 sectors per warp request where 4 "
            "would do (1.4x): the distance between consecutive threads depends on 'K', whose value "
            "is not known; give it with --param KERNEL:NAME=VALUE, and if it is a row length, swap "
            "the index order so that threadIdx.x walks the contiguous dimension");

  // Misaligned: the saving is the excess sectors of its lane executions at the roofline's bandwidth.
  K.Accesses = {read<MemoryAccess>(MisalignedAccess)};
  K.Work = read<WorkFacts>(MatmulWork); // 4.3 TB/s
  D = runCheck("cuda-uncoalesced-access", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Message,
            "global load of 4-byte elements touches 5 sectors per warp request where 4 would do "
            "(1.2x): the warp's first address is 28 bytes past a 32-byte sector boundary; align the "
            "start (offset the index to a multiple of 8 elements, pad rows to a multiple of 32 "
            "bytes), or for stencil neighbours load the tile and its halo into shared memory once");
  ASSERT_TRUE(D[0].EstimatedSavingUs);
  EXPECT_NEAR(*D[0].EstimatedSavingUs, 1.0 * 4186116 / 4.3e12 * 1e6, 1e-9);
  K.Accesses[0].LaneExecutions = std::optional<double>(); // unknown: no saving
  D = runCheck("cuda-uncoalesced-access", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_FALSE(D[0].EstimatedSavingUs);
  K.Accesses[0].Pattern = "strided"; // the stride, then, from thread_coefficients.x
  K.Accesses[0].StrideBytes = 8;
  EXPECT_NE(runCheck("cuda-uncoalesced-access", K)[0].Message.find(
                ": consecutive threads are 2 elements (8 bytes) apart; vectorise"),
            std::string::npos);

  K.Accesses = {read<MemoryAccess>(BankConflictAccess)};
  D = runCheck("cuda-shared-bank-conflict", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Message,
            "shared store of 4-byte elements needs 16.00 wavefronts per warp request where 1 would "
            "do (16.00-way bank conflict): consecutive threadIdx.x are 256 bytes apart, so 32 lanes "
            "share a bank; pad each row by one element (declare as[16][65]) or swizzle the column "
            "index (col ^ row)");

  K.Name = "reduce_sum";
  K.Accesses = {read<MemoryAccess>(UnknownAccess), read<MemoryAccess>(BankConflictAccess)};
  D = runCheck("cudaperf-unknown-access", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Message,
            "the analysis could not follow 1 memory access of 'reduce_sum': the shared load here in "
            "the loop at line 52 (a loop variable changes by something other than a constant step "
            "each iteration (multiplied, shifted or divided, e.g. stride *= 2): its value per "
            "iteration is not modelled); their coalescing and bank conflicts are not judged");
}

TEST(KernelFacts, BarrierChecksReadTheSyncSites) {
  KernelReport K = kernel();
  for (const char *Check : {"cuda-divergent-barrier", "cuda-shared-war-hazard",
                            "cuda-missing-barrier", "cuda-redundant-barrier", "cuda-contended-atomic"})
    EXPECT_TRUE(runCheck(Check, K).empty()) << Check; // not analysed: silent

  K.Sync = read<SyncFacts>(WarHazardSync);
  std::vector<Diagnostic> D = runCheck("cuda-divergent-barrier", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Loc.Line, 40u);
  EXPECT_EQ(D[0].Loc.Column, 5u);
  EXPECT_EQ(D[0].Loc.File, "k.cu");
  EXPECT_EQ(D[0].Message,
            "barrier is executed under the thread-dependent condition at line 38, so threads of a "
            "block can disagree on reaching it (deadlock or unordered shared memory); compute the "
            "condition, synchronize unconditionally, then branch");
  K.Sync->DivergentBarrierSites[0].Condition.reset();
  EXPECT_NE(runCheck("cuda-divergent-barrier", K)[0].Message.find(
                "barrier is executed under a thread-dependent condition,"),
            std::string::npos);
  D = runCheck("cuda-shared-war-hazard", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Loc.Line, 42u);
  EXPECT_EQ(D[0].Message,
            "shared memory read here (by thread (255)) is overwritten at line 39 by thread (0) in "
            "the next iteration of the loop at line 38 with no __syncthreads() between the read and "
            "the write; add __syncthreads() at the end of the loop body (after the last read)");

  K.Sync = read<SyncFacts>(MissingBarrierSync);
  D = runCheck("cuda-missing-barrier", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Loc.Column, 22u);
  EXPECT_EQ(D[0].Message,
            "shared memory read here is written at line 9 by another thread (thread (0) reads what "
            "thread (1) writes) with no __syncthreads() on some path between them; add a barrier "
            "after the write");

  K.Sync = read<SyncFacts>(RedundantBarrierSync);
  D = runCheck("cuda-redundant-barrier", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Loc.Line, 7u);

  K.Sync = read<SyncFacts>(ContendedAtomicSync);
  D = runCheck("cuda-contended-atomic", K);
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Message,
            "global atomic: 32 lanes of a warp update one address (32 serialized updates per warp "
            "request), 256 threads of a block, and every block (4096 blocks) updates the same "
            "address: 1048576 serialized updates per launch; reduce within the warp "
            "(__shfl_down_sync) and the block (shared memory) first and issue one atomic per block "
            "(a privatized copy per block for a histogram)");
  ASSERT_TRUE(D[0].EstimatedSavingUs);
  EXPECT_NEAR(*D[0].EstimatedSavingUs, (1048576.0 - 4096) / 1000.0, 1e-9);
  // The compiler's per-warp aggregation: 8 updates per block, below the thresholds.
  K.Sync = read<SyncFacts>(AggregatedAtomicSync);
  EXPECT_TRUE(runCheck("cuda-contended-atomic", K).empty());
  K.Sync->AtomicSites[0].CompilerAggregatesWarp = false;
  EXPECT_EQ(runCheck("cuda-contended-atomic", K).size(), 1u);
}

namespace {

// Kernel `second` of test/Robustness/fault-injection.test's two.cu as cudaperf-analyze
// --cuda-headers=builtin --format=json --inject-fault=second:segv:synchronization writes it (keys
// sorted): the synchronization analysis faulted (empty sync section), the others reported.
const char *FaultedKernel =
    R"J({"accesses":[{"address":"(8 * (zext i32 threadIdx.x to i64))<nuw><nsw>","bank_conflict_w)J"
    R"J(ays":null,"base":"parameter b","bytes":4,"column":55,"executions_per_thread":1,"file":"t)J"
    R"J(wo.cu","ideal_sectors_per_request":4,"lane_executions":null,"line":2,"loop_depth":0,"mis)J"
    R"J(alignment_bytes":0,"notes":["block shape assumed (256x1x1); give it with --launch"],"op")J"
    R"J(:"store","pattern":"strided","sectors_per_request":8,"space":"global","stride_bytes":8,")J"
    R"J(stride_elements":2,"thread_coefficients":{"x":8,"y":0,"z":0}}],"analysis_faults":[{"anal)J"
    R"J(ysis":"synchronization","fault":"segmentation fault (SIGSEGV)"}],"coalescing_efficiency")J"
    R"J(:0.5,"column":17,"file":"two.cu","launch":{"block":[256,1,1],"dynamic_smem_bytes":0,"gri)J"
    R"J(d":null,"origin":"assumed","params":{}},"launch_bounds":null,"launch_sites":[],"line":2,)J"
    R"J("mangled_name":"_Z6secondPf","name":"second","notes":["the synchronization analysis stop)J"
    R"J(ped with a fault (segmentation fault (SIGSEGV)): its facts are missing; the other analys)J"
    R"J(es and kernels are reported"],"occupancy":{"active_blocks_per_sm":8,"active_warps_per_sm)J"
    R"J(":64,"allocated_registers_per_block":4096,"allocated_smem_per_block":1024,"arch":"sm_90")J"
    R"J(,"block_size":256,"device":"H200","dynamic_smem_bytes":0,"launch_origin":"assumed","limi)J"
    R"J(ter":"warps","limits":{"barriers":64,"blocks":32,"registers":16,"shared_memory":228,"war)J"
    R"J(ps":8},"max_warps_per_sm":64,"registers":10,"sms":132,"static_smem_bytes":0,"theoretical)J"
    R"J(":1},"parameters":[{"const":false,"name":"b","pointee":"float","pointee_bytes":4,"type":)J"
    R"J("float *"}],"resources":{"arch":"sm_90","barriers":0,"cached":false,"compiler":"nvrtc 13)J"
    R"J(.0","constant_bytes":0,"local_bytes":0,"registers":10,"source":"nvrtc","spill_load_bytes)J"
    R"J(":0,"spill_store_bytes":0,"static_smem_bytes":0},"shared_arrays":[],"sync":{},"work":{"a)J"
    R"J(rithmetic_intensity":null,"arrays":[{"array":"b","dram_read_bytes_estimate":null,"dram_w)J"
    R"J(rite_bytes_estimate":null,"range_known":true}],"bound":null,"dram_read_bytes_estimate":n)J"
    R"J(ull,"dram_write_bytes_estimate":null,"dram_write_bytes_estimate_atomic":null,"flops":{"l)J"
    R"J(ibrary":null,"per_thread":0,"tensor":null,"total":null},"global_load_bytes":null,"global)J"
    R"J(_load_sectors":null,"global_sectors":null,"global_store_bytes":null,"global_store_sector)J"
    R"J(s":null,"int_ops":null,"loops":[],"notes":["grid unknown: per-launch totals need the gri)J"
    R"J(d (a constant launch site or --launch); per-thread values use a representative grid"],"r)J"
    R"J(oofline":{"bandwidth_source":"measured","device":"H200","dram_bytes_per_second":43000000)J"
    R"J(00000},"roofline_time_us":null,"sass_fp_instructions":{},"shared_bytes":null,"threads":n)J"
    R"J(ull}})J";

/// \p Key of the kernel object \p Kernel read into \p Out (absent: left as it is).
template <typename T> void readKey(const llvm::json::Object &Kernel, llvm::StringRef Key, T &Out) {
  const llvm::json::Value *V = Kernel.get(Key);
  if (!V)
    return;
  llvm::json::Path::Root Root;
  if (!fromJSON(*V, Out, Root))
    ADD_FAILURE() << Key.str() << ": " << llvm::toString(Root.getError());
}

/// The kernel's typed keys read from \p Kernel into a report (name and location too).
KernelReport typedKernel(const llvm::json::Object &Kernel) {
  KernelReport K;
  K.Name = Kernel.getString("name").value_or("").str();
  K.MangledName = Kernel.getString("mangled_name").value_or("").str();
  K.Loc = {Kernel.getString("file").value_or("").str(),
           unsigned(Kernel.getInteger("line").value_or(0)),
           unsigned(Kernel.getInteger("column").value_or(0))};
  readKey(Kernel, "accesses", K.Accesses);
  readKey(Kernel, "resources", K.Resources);
  readKey(Kernel, "occupancy", K.Occupancy);
  readKey(Kernel, "work", K.Work);
  readKey(Kernel, "coalescing_efficiency", K.CoalescingEfficiency);
  readKey(Kernel, "analysis_faults", K.AnalysisFaults);
  readKey(Kernel, "notes", K.Notes);
  return K;
}

std::string printValue(const llvm::json::Value *V) {
  if (!V)
    return "(absent)";
  std::string S;
  llvm::raw_string_ostream(S) << *V;
  return S;
}

} // namespace

TEST(KernelFacts, FaultedKernelReadsAndWritesBackIdentically) {
  llvm::json::Value Doc = parse(FaultedKernel);
  const llvm::json::Object &Original = *Doc.getAsObject();
  KernelReport K = typedKernel(Original);
  ASSERT_EQ(K.AnalysisFaults.size(), 1u);
  EXPECT_EQ(K.AnalysisFaults[0].Analysis, "synchronization");
  EXPECT_EQ(K.AnalysisFaults[0].Fault, "segmentation fault (SIGSEGV)");
  EXPECT_EQ(K.CoalescingEfficiency, 0.5);
  EXPECT_FALSE(K.Sync); // the faulted analysis's section: not written, {}

  // The JSON writer prints every typed key of the kernel as the analyzer did.
  llvm::json::Value Written = kernelToJSON(K, ReportOptions());
  const llvm::json::Object &Out = *Written.getAsObject();
  for (llvm::StringRef Key : {"name", "mangled_name", "file", "line", "column", "accesses", "sync",
                              "resources", "occupancy", "work", "coalescing_efficiency",
                              "analysis_faults", "notes"})
    EXPECT_EQ(printValue(Out.get(Key)), printValue(Original.get(Key))) << Key.str();

  // Without a fault or a predicted access, neither key is written.
  K.AnalysisFaults.clear();
  K.CoalescingEfficiency.reset();
  Written = kernelToJSON(K, ReportOptions());
  EXPECT_FALSE(Written.getAsObject()->get("analysis_faults"));
  EXPECT_FALSE(Written.getAsObject()->get("coalescing_efficiency"));
  // Faults are written in the order they happened.
  K.AnalysisFaults = {{"coalescing", "segmentation fault (SIGSEGV)"},
                      {"work", "abort, e.g. a failed assertion (SIGABRT)"}};
  EXPECT_EQ(printValue(kernelToJSON(K, ReportOptions()).getAsObject()->get("analysis_faults")),
            R"J([{"analysis":"coalescing","fault":"segmentation fault (SIGSEGV)"},)J"
            R"J({"analysis":"work","fault":"abort, e.g. a failed assertion (SIGABRT)"}])J");
}

TEST(KernelFacts, AnalysisFaultErrorsNameTheFieldPath) {
  std::string E = fromJSONError<AnalysisFault>(R"({"analysis":"work"})");
  EXPECT_NE(E.find("fault"), std::string::npos) << E;
  E = fromJSONError<AnalysisFault>(R"({"analysis":3,"fault":"x"})");
  EXPECT_NE(E.find("analysis"), std::string::npos) << E;
  llvm::json::Value V = parse(R"({"analysis_faults":[{"analysis":"work","fault":"x"},)"
                              R"({"analysis":"coalescing"}]})");
  std::vector<AnalysisFault> Faults;
  llvm::json::Path::Root Root;
  llvm::json::ObjectMapper M(V, Root);
  EXPECT_FALSE(M.map("analysis_faults", Faults));
  E = llvm::toString(Root.getError());
  EXPECT_NE(E.find("analysis_faults[1].fault"), std::string::npos) << E;
}

TEST(KernelFacts, AnalysisFaultCheckReadsTheFaults) {
  llvm::json::Value Doc = parse(FaultedKernel);
  KernelReport K = typedKernel(*Doc.getAsObject());
  std::vector<Diagnostic> D = runCheck("cudaperf-analysis-fault", K);
  // The message cudaperf-analyze printed for this kernel.
  ASSERT_EQ(D.size(), 1u);
  EXPECT_EQ(D[0].Level, Severity::Error);
  EXPECT_EQ(D[0].Loc.Line, 2u);
  EXPECT_EQ(D[0].Message,
            "the synchronization analysis of kernel 'second' stopped with a fault (segmentation "
            "fault (SIGSEGV)): its facts are missing from this report; this is a cudaperf defect, "
            "please report it with this file");
  // One finding per fault, in order; none without.
  K.AnalysisFaults.push_back({"work", "abort, e.g. a failed assertion (SIGABRT)"});
  D = runCheck("cudaperf-analysis-fault", K);
  ASSERT_EQ(D.size(), 2u);
  EXPECT_NE(D[1].Message.find("the work analysis of kernel 'second' stopped with a fault (abort"),
            std::string::npos)
      << D[1].Message;
  K.AnalysisFaults.clear();
  EXPECT_TRUE(runCheck("cudaperf-analysis-fault", K).empty());
}
