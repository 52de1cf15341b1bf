//===- KernelFacts.cpp - The per-kernel sections of the analysis document, typed ----------===//
//
// The one place these sections' keys are spelled (accesses, sync, resources, occupancy, work,
// analysis_faults; docs/json-schema.md); the wire format is what the analyses wrote as JSON
// before (the lit tests and the analysis fixtures pin it).
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Report/KernelFacts.h"
#include <cmath>
#include <cstdint>

namespace cudaperf {

using llvm::json::Object;
using llvm::json::ObjectMapper;
using llvm::json::Path;
using llvm::json::Value;

Object ResourceFacts::toJson() const {
  Object R{{"registers", Registers},
           {"spill_store_bytes", SpillStoreBytes},
           {"spill_load_bytes", SpillLoadBytes},
           {"local_bytes", LocalBytes},
           {"static_smem_bytes", StaticSmemBytes},
           {"barriers", Barriers},
           {"constant_bytes", ConstantBytes},
           {"source", Source},
           {"arch", Arch}};
  if (fromCompiler()) {
    R["compiler"] = Compiler;
    R["cached"] = Cached;
  }
  return R;
}

bool fromJSON(const Value &V, ResourceFacts &R, Path P) {
  ObjectMapper M(V, P);
  if (!(M && M.map("registers", R.Registers) && M.map("spill_store_bytes", R.SpillStoreBytes) &&
        M.map("spill_load_bytes", R.SpillLoadBytes) && M.map("local_bytes", R.LocalBytes) &&
        M.map("static_smem_bytes", R.StaticSmemBytes) && M.map("barriers", R.Barriers) &&
        M.map("constant_bytes", R.ConstantBytes) && M.map("source", R.Source) &&
        M.map("arch", R.Arch)))
    return false;
  if (!R.fromCompiler())
    return true;
  return M.map("compiler", R.Compiler) && M.map("cached", R.Cached);
}

namespace {

void putWaves(Object &O, const WaveFacts &W, bool WithFullWaves) {
  O["blocks_per_wave"] = W.BlocksPerWave;
  O["waves"] = W.Waves;
  if (WithFullWaves)
    O["full_waves"] = W.FullWaves;
  O["last_wave_fraction"] = W.LastWaveFraction;
}

/// The waves of \p V when it has them ("waves" present), all keys then required.
bool readWaves(const Value &V, std::optional<WaveFacts> &Out, bool WithFullWaves, Path P) {
  const Object *O = V.getAsObject();
  if (!O || !O->get("waves"))
    return true;
  ObjectMapper M(V, P);
  WaveFacts W;
  if (!(M.map("blocks_per_wave", W.BlocksPerWave) && M.map("waves", W.Waves) &&
        M.map("last_wave_fraction", W.LastWaveFraction)))
    return false;
  if (WithFullWaves && !M.map("full_waves", W.FullWaves))
    return false;
  Out = W;
  return true;
}

} // namespace

bool fromJSON(const Value &V, LaunchSiteOccupancy &S, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("line", S.Line) && M.map("column", S.Column) &&
         M.map("grid_blocks", S.GridBlocks) && M.map("block_size", S.BlockSize) &&
         M.map("dynamic_smem_bytes", S.DynamicSmemBytes) &&
         M.map("active_blocks_per_sm", S.ActiveBlocksPerSM) && M.map("theoretical", S.Theoretical) &&
         readWaves(V, S.Waves, /*WithFullWaves=*/false, P);
}

bool fromJSON(const Value &V, OccupancyRaise &R, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("change", R.Change) && M.map("value", R.Value) &&
         M.map("active_blocks_per_sm", R.ActiveBlocksPerSM) && M.map("theoretical", R.Theoretical) &&
         M.map("text", R.Text);
}

bool fromJSON(const Value &V, OccupancyLimits &L, Path P) {
  ObjectMapper M(V, P);
  return M && M.mapOptional("registers", L.Registers) &&
         M.mapOptional("shared_memory", L.SharedMemory) && M.mapOptional("warps", L.Warps) &&
         M.mapOptional("blocks", L.Blocks) && M.mapOptional("barriers", L.Barriers);
}

Object OccupancyFacts::toJson() const {
  Object O{{"arch", Arch},
           {"block_size", BlockSize},
           {"dynamic_smem_bytes", DynamicSmemBytes},
           {"launch_origin", LaunchOrigin},
           {"registers", Registers},
           {"static_smem_bytes", StaticSmemBytes},
           {"active_blocks_per_sm", ActiveBlocksPerSM},
           {"active_warps_per_sm", ActiveWarpsPerSM},
           {"max_warps_per_sm", MaxWarpsPerSM},
           {"theoretical", Theoretical},
           {"limiter", Limiter},
           {"allocated_registers_per_block", AllocatedRegistersPerBlock},
           {"allocated_smem_per_block", AllocatedSmemPerBlock}};
  if (Device)
    O["device"] = *Device;
  if (SMs)
    O["sms"] = *SMs;
  Object L;
  auto Put = [&](const char *Key, const std::optional<int64_t> &Blocks) {
    if (Blocks)
      L[Key] = *Blocks;
  };
  Put("registers", Limits.Registers);
  Put("shared_memory", Limits.SharedMemory);
  Put("warps", Limits.Warps);
  Put("blocks", Limits.Blocks);
  Put("barriers", Limits.Barriers);
  O["limits"] = std::move(L);
  if (!Problem.empty())
    O["problem"] = Problem;
  if (GridBlocks && Waves) {
    O["grid_blocks"] = *GridBlocks;
    putWaves(O, *Waves, /*WithFullWaves=*/true);
  }
  if (!LaunchSites.empty()) {
    llvm::json::Array Sites;
    for (const LaunchSiteOccupancy &S : LaunchSites) {
      Object SO{{"line", S.Line},
                {"column", S.Column},
                {"grid_blocks", S.GridBlocks},
                {"block_size", S.BlockSize},
                {"dynamic_smem_bytes", S.DynamicSmemBytes},
                {"active_blocks_per_sm", S.ActiveBlocksPerSM},
                {"theoretical", S.Theoretical}};
      if (S.Waves)
        putWaves(SO, *S.Waves, /*WithFullWaves=*/false);
      Sites.push_back(std::move(SO));
    }
    O["launch_sites"] = std::move(Sites);
  }
  if (Raise)
    O["raise"] = Object{{"change", Raise->Change},
                        {"value", Raise->Value},
                        {"active_blocks_per_sm", Raise->ActiveBlocksPerSM},
                        {"theoretical", Raise->Theoretical},
                        {"text", Raise->Text}};
  return O;
}

bool fromJSON(const Value &V, OccupancyFacts &O, Path P) {
  ObjectMapper M(V, P);
  if (!(M && M.map("arch", O.Arch) && M.mapOptional("device", O.Device) &&
        M.mapOptional("sms", O.SMs) && M.map("block_size", O.BlockSize) &&
        M.map("dynamic_smem_bytes", O.DynamicSmemBytes) && M.map("launch_origin", O.LaunchOrigin) &&
        M.map("registers", O.Registers) && M.map("static_smem_bytes", O.StaticSmemBytes) &&
        M.map("active_blocks_per_sm", O.ActiveBlocksPerSM) &&
        M.map("active_warps_per_sm", O.ActiveWarpsPerSM) &&
        M.map("max_warps_per_sm", O.MaxWarpsPerSM) && M.map("theoretical", O.Theoretical) &&
        M.map("limiter", O.Limiter) && M.map("limits", O.Limits) &&
        M.map("allocated_registers_per_block", O.AllocatedRegistersPerBlock) &&
        M.map("allocated_smem_per_block", O.AllocatedSmemPerBlock) &&
        M.mapOptional("problem", O.Problem) && M.mapOptional("launch_sites", O.LaunchSites) &&
        M.mapOptional("raise", O.Raise)))
    return false;
  if (!readWaves(V, O.Waves, /*WithFullWaves=*/true, P))
    return false;
  if (!O.Waves)
    return true;
  int64_t Grid = 0;
  if (!M.map("grid_blocks", Grid))
    return false;
  O.GridBlocks = Grid;
  return true;
}

// ---- work ----

namespace {

/// Whole numbers as integers (as the analysis wrote its counts), others as they are.
Value workNumber(double V) {
  if (std::isfinite(V) && std::fabs(V) < 9e15 && V == std::floor(V))
    return int64_t(V);
  return V;
}

Value workCount(const WorkCount &V) { return V ? workNumber(*V) : Value(nullptr); }

Object countMap(const std::map<std::string, WorkCount> &M) {
  Object O;
  for (const auto &[Key, N] : M)
    O[Key] = workCount(N);
  return O;
}

/// A key that must be present, its value a number or null.
bool readCount(const Object &O, llvm::StringRef Key, WorkCount &Out, Path P) {
  const Value *V = O.get(Key);
  if (!V) {
    P.field(Key).report("missing value");
    return false;
  }
  return llvm::json::fromJSON(*V, Out, P.field(Key));
}

const Object *objectOf(const Value &V, Path P) {
  const Object *O = V.getAsObject();
  if (!O)
    P.report("expected object");
  return O;
}

} // namespace

bool fromJSON(const Value &V, PrecisionFlops &F, Path P) {
  const Object *O = objectOf(V, P);
  return O && readCount(*O, "total", F.Total, P) && readCount(*O, "add", F.Add, P) &&
         readCount(*O, "mul", F.Mul, P) && readCount(*O, "fma", F.Fma, P) &&
         readCount(*O, "library", F.Library, P) && readCount(*O, "division", F.Division, P) &&
         readCount(*O, "sqrt", F.Sqrt, P) && readCount(*O, "special", F.Special, P);
}

bool fromJSON(const Value &V, WorkFlops &F, Path P) {
  const Object *O = objectOf(V, P);
  ObjectMapper M(V, P);
  if (!(O && readCount(*O, "total", F.Total, P) && readCount(*O, "per_thread", F.PerThread, P) &&
        readCount(*O, "library", F.Library, P) && readCount(*O, "tensor", F.Tensor, P) &&
        M.mapOptional("special_functions", F.SpecialFunctions) &&
        M.mapOptional("tensor_by_type", F.TensorByType) &&
        M.mapOptional("per_thread_expr", F.PerThreadExpr)))
    return false;
  // Every other key is a precision.
  for (const auto &KV : *O) {
    llvm::StringRef Key = KV.first;
    if (Key == "total" || Key == "per_thread" || Key == "library" || Key == "tensor" ||
        Key == "special_functions" || Key == "tensor_by_type" || Key == "per_thread_expr")
      continue;
    if (!fromJSON(KV.second, F.ByPrecision[Key.str()], P.field(Key)))
      return false;
  }
  return true;
}

bool fromJSON(const Value &V, ArrayTrafficFacts &A, Path P) {
  const Object *O = objectOf(V, P);
  ObjectMapper M(V, P);
  if (!(O && M.map("array", A.Array) &&
        readCount(*O, "dram_read_bytes_estimate", A.DramReadBytesEstimate, P) &&
        readCount(*O, "dram_write_bytes_estimate", A.DramWriteBytesEstimate, P) &&
        M.map("range_known", A.RangeKnown)))
    return false;
  if (!O->get("staged_in_shared")) // an array without loads
    return true;
  ArrayLoadFacts L;
  if (!(readCount(*O, "global_load_bytes", L.GlobalLoadBytes, P) &&
        M.mapOptional("reuse_factor", L.ReuseFactor) &&
        M.map("staged_in_shared", L.StagedInShared) && M.map("line", L.Line) &&
        M.map("column", L.Column)))
    return false;
  A.Loads = L;
  return true;
}

bool fromJSON(const Value &V, RooflineFacts &R, Path P) {
  const Object *O = objectOf(V, P);
  ObjectMapper M(V, P);
  if (!(O && M.map("device", R.Device) && M.map("dram_bytes_per_second", R.DramBytesPerSecond) &&
        M.map("bandwidth_source", R.BandwidthSource)))
    return false;
  if (!O->get("compute_time_us")) // the work is not known
    return true;
  RooflineTimes T;
  if (!(M.map("compute_time_us", T.ComputeTimeUs) && M.map("memory_time_us", T.MemoryTimeUs) &&
        M.map("ridge_fp32_flop_per_byte", T.RidgeFp32FlopPerByte)))
    return false;
  R.Times = T;
  return true;
}

bool fromJSON(const Value &V, LoopFacts &L, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("line", L.Line) && M.map("depth", L.Depth) &&
         M.map("trip_count_expr", L.TripCountExpr) && M.map("trip_count_known", L.TripCountKnown);
}

Object WorkFacts::toJson() const {
  Object F{{"total", workCount(Flops.Total)},
           {"per_thread", workCount(Flops.PerThread)},
           {"library", workCount(Flops.Library)},
           {"tensor", workCount(Flops.Tensor)}};
  for (const auto &[Name, Pr] : Flops.ByPrecision)
    F[Name] = Object{{"total", workCount(Pr.Total)},     {"add", workCount(Pr.Add)},
                     {"mul", workCount(Pr.Mul)},         {"fma", workCount(Pr.Fma)},
                     {"library", workCount(Pr.Library)}, {"division", workCount(Pr.Division)},
                     {"sqrt", workCount(Pr.Sqrt)},       {"special", workCount(Pr.Special)}};
  if (Flops.SpecialFunctions)
    F["special_functions"] = countMap(*Flops.SpecialFunctions);
  if (Flops.TensorByType)
    F["tensor_by_type"] = countMap(*Flops.TensorByType);
  if (Flops.PerThreadExpr)
    F["per_thread_expr"] = *Flops.PerThreadExpr;

  Object W{{"threads", workCount(Threads)},
           {"flops", std::move(F)},
           {"sass_fp_instructions", countMap(SassFpInstructions)},
           {"int_ops", workCount(IntOps)},
           {"global_load_bytes", workCount(GlobalLoadBytes)},
           {"global_store_bytes", workCount(GlobalStoreBytes)},
           {"global_load_sectors", workCount(GlobalLoadSectors)},
           {"global_store_sectors", workCount(GlobalStoreSectors)},
           {"global_sectors", workCount(GlobalSectors)},
           {"shared_bytes", workCount(SharedBytes)},
           {"dram_read_bytes_estimate", workCount(DramReadBytesEstimate)},
           {"dram_write_bytes_estimate", workCount(DramWriteBytesEstimate)},
           {"dram_write_bytes_estimate_atomic", workCount(DramWriteBytesEstimateAtomic)},
           {"arithmetic_intensity", workCount(ArithmeticIntensity)},
           {"roofline_time_us", workCount(RooflineTimeUs)},
           {"bound", Bound ? Value(*Bound) : Value(nullptr)}};
  llvm::json::Array AL;
  for (const ArrayTrafficFacts &A : Arrays) {
    Object O{{"array", A.Array ? Value(*A.Array) : Value(nullptr)},
             {"dram_read_bytes_estimate", workCount(A.DramReadBytesEstimate)},
             {"dram_write_bytes_estimate", workCount(A.DramWriteBytesEstimate)},
             {"range_known", A.RangeKnown}};
    if (A.Loads) {
      O["global_load_bytes"] = workCount(A.Loads->GlobalLoadBytes);
      if (A.Loads->ReuseFactor)
        O["reuse_factor"] = workNumber(*A.Loads->ReuseFactor);
      O["staged_in_shared"] = A.Loads->StagedInShared;
      O["line"] = A.Loads->Line;
      O["column"] = A.Loads->Column;
    }
    AL.push_back(std::move(O));
  }
  W["arrays"] = std::move(AL);
  if (L2ArithmeticIntensity)
    W["l2_arithmetic_intensity"] = workNumber(*L2ArithmeticIntensity);
  if (Roofline) {
    Object R{{"device", Roofline->Device},
             {"dram_bytes_per_second", workNumber(Roofline->DramBytesPerSecond)},
             {"bandwidth_source", Roofline->BandwidthSource}};
    if (Roofline->Times) {
      R["compute_time_us"] = workNumber(Roofline->Times->ComputeTimeUs);
      R["memory_time_us"] = workNumber(Roofline->Times->MemoryTimeUs);
      R["ridge_fp32_flop_per_byte"] = workNumber(Roofline->Times->RidgeFp32FlopPerByte);
    }
    W["roofline"] = std::move(R);
  }
  llvm::json::Array LL;
  for (const LoopFacts &L : Loops)
    LL.push_back(Object{{"line", L.Line},
                        {"depth", L.Depth},
                        {"trip_count_expr", L.TripCountExpr},
                        {"trip_count_known", L.TripCountKnown}});
  W["loops"] = std::move(LL);
  if (!Notes.empty())
    W["notes"] = llvm::json::Array(Notes);
  return W;
}

bool fromJSON(const Value &V, WorkFacts &W, Path P) {
  const Object *O = objectOf(V, P);
  ObjectMapper M(V, P);
  static const char *const Counts[] = {
      "threads", "int_ops", "global_load_bytes", "global_store_bytes", "global_load_sectors",
      "global_store_sectors", "global_sectors", "shared_bytes", "dram_read_bytes_estimate",
      "dram_write_bytes_estimate", "dram_write_bytes_estimate_atomic", "arithmetic_intensity",
      "roofline_time_us"};
  WorkCount *Fields[] = {&W.Threads, &W.IntOps, &W.GlobalLoadBytes, &W.GlobalStoreBytes,
                         &W.GlobalLoadSectors, &W.GlobalStoreSectors, &W.GlobalSectors,
                         &W.SharedBytes, &W.DramReadBytesEstimate, &W.DramWriteBytesEstimate,
                         &W.DramWriteBytesEstimateAtomic, &W.ArithmeticIntensity,
                         &W.RooflineTimeUs};
  if (!O)
    return false;
  for (size_t I = 0; I < std::size(Counts); ++I)
    if (!readCount(*O, Counts[I], *Fields[I], P))
      return false;
  if (!O->get("bound")) {
    P.field("bound").report("missing value");
    return false;
  }
  return M.map("flops", W.Flops) && M.map("sass_fp_instructions", W.SassFpInstructions) &&
         M.map("bound", W.Bound) && M.map("arrays", W.Arrays) &&
         M.mapOptional("l2_arithmetic_intensity", W.L2ArithmeticIntensity) &&
         M.mapOptional("roofline", W.Roofline) && M.map("loops", W.Loops) &&
         M.mapOptional("notes", W.Notes);
}

// ---- accesses ----

namespace {

Value optNumber(const std::optional<double> &V) { return V ? Value(*V) : Value(nullptr); }

Value optInteger(const std::optional<int64_t> &V) { return V ? Value(*V) : Value(nullptr); }

Object coefficientsJson(const ThreadCoefficients &C) {
  return Object{{"x", C.X}, {"y", C.Y}, {"z", C.Z}};
}

/// A key that may be absent (Out left unset), null or a value.
template <typename T>
bool readNullable(const Object &O, llvm::StringRef Key, NullableKey<T> &Out, Path P) {
  const Value *V = O.get(Key);
  if (!V)
    return true;
  std::optional<T> X;
  if (!llvm::json::fromJSON(*V, X, P.field(Key)))
    return false;
  Out = std::move(X);
  return true;
}

/// A line or column: a whole number from 0 to UINT_MAX.
bool readPosition(ObjectMapper &M, llvm::StringLiteral Key, unsigned &Out, Path P) {
  int64_t N = 0;
  if (!M.map(Key, N))
    return false;
  if (N < 0 || N > int64_t(UINT32_MAX)) {
    P.field(Key).report("expected a line or column number");
    return false;
  }
  Out = unsigned(N);
  return true;
}

} // namespace

bool fromJSON(const Value &V, ThreadCoefficients &C, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("x", C.X) && M.map("y", C.Y) && M.map("z", C.Z);
}

Object MemoryAccess::toJson() const {
  Object O{{"line", Loc.Line},
           {"column", Loc.Column},
           {"space", Space},
           {"op", Op},
           {"bytes", Bytes},
           {"pattern", Pattern},
           {"sectors_per_request", optNumber(SectorsPerRequest)},
           {"bank_conflict_ways", optNumber(BankConflictWays)}};
  if (!Loc.File.empty())
    O["file"] = Loc.File;
  if (ExecutionsPerThread)
    O["executions_per_thread"] = optInteger(*ExecutionsPerThread);
  if (ExecutionsPerThreadExpr)
    O["executions_per_thread_expr"] = *ExecutionsPerThreadExpr;
  if (LaneExecutions)
    O["lane_executions"] = workCount(*LaneExecutions);
  if (LaunchSectorsPerRequest)
    O["launch_sectors_per_request"] = *LaunchSectorsPerRequest;
  if (Base)
    O["base"] = *Base;
  if (LoopDepth)
    O["loop_depth"] = *LoopDepth;
  if (GridStrideLoop)
    O["grid_stride_loop"] = true;
  if (LaneGuarded)
    O["lane_guarded"] = true;
  if (Address)
    O["address"] = *Address;
  if (Coefficients)
    O["thread_coefficients"] = *Coefficients ? Value(coefficientsJson(**Coefficients)) : Value(nullptr);
  if (StrideBytes)
    O["stride_bytes"] = *StrideBytes;
  if (StrideElements)
    O["stride_elements"] = workNumber(*StrideElements);
  if (!UnknownParams.empty())
    O["unknown_params"] = llvm::json::Array(UnknownParams);
  if (MisalignmentBytes)
    O["misalignment_bytes"] = *MisalignmentBytes;
  if (StructStride)
    O["struct_stride"] = true;
  if (IdealSectorsPerRequest)
    O["ideal_sectors_per_request"] = *IdealSectorsPerRequest;
  if (SectorsPerRequestTypical)
    O["sectors_per_request_typical"] = *SectorsPerRequestTypical;
  if (SectorsPerRequestWorst)
    O["sectors_per_request_worst"] = *SectorsPerRequestWorst;
  if (Array)
    O["array"] = *Array;
  if (ArrayDims)
    O["array_dims"] = llvm::json::Array(*ArrayDims);
  if (ElementBytes)
    O["element_bytes"] = *ElementBytes;
  if (IdealWavefronts)
    O["ideal_wavefronts"] = *IdealWavefronts;
  if (UnknownReason)
    O["unknown_reason"] = *UnknownReason;
  if (UnknownLoopLine)
    O["unknown_loop_line"] = *UnknownLoopLine;
  if (!Notes.empty())
    O["notes"] = llvm::json::Array(Notes);
  return O;
}

bool fromJSON(const Value &V, MemoryAccess &A, Path P) {
  const Object *O = objectOf(V, P);
  ObjectMapper M(V, P);
  int64_t Bytes = 0;
  std::optional<std::string> File;
  if (!(O && readPosition(M, "line", A.Loc.Line, P) &&
        readPosition(M, "column", A.Loc.Column, P) && M.mapOptional("file", File) &&
        M.map("space", A.Space) && M.map("op", A.Op) && M.map("bytes", Bytes) &&
        M.map("pattern", A.Pattern) && M.map("sectors_per_request", A.SectorsPerRequest) &&
        M.map("bank_conflict_ways", A.BankConflictWays)))
    return false;
  if (Bytes < 0 || Bytes > int64_t(UINT32_MAX)) {
    P.field("bytes").report("expected a byte count");
    return false;
  }
  A.Bytes = unsigned(Bytes);
  A.Loc.File = File.value_or("");
  return readNullable(*O, "executions_per_thread", A.ExecutionsPerThread, P) &&
         M.mapOptional("executions_per_thread_expr", A.ExecutionsPerThreadExpr) &&
         readNullable(*O, "lane_executions", A.LaneExecutions, P) &&
         M.mapOptional("launch_sectors_per_request", A.LaunchSectorsPerRequest) &&
         M.mapOptional("base", A.Base) && M.mapOptional("loop_depth", A.LoopDepth) &&
         M.mapOptional("grid_stride_loop", A.GridStrideLoop) &&
         M.mapOptional("lane_guarded", A.LaneGuarded) && M.mapOptional("address", A.Address) &&
         readNullable(*O, "thread_coefficients", A.Coefficients, P) &&
         M.mapOptional("stride_bytes", A.StrideBytes) &&
         M.mapOptional("stride_elements", A.StrideElements) &&
         M.mapOptional("unknown_params", A.UnknownParams) &&
         M.mapOptional("misalignment_bytes", A.MisalignmentBytes) &&
         M.mapOptional("struct_stride", A.StructStride) &&
         M.mapOptional("ideal_sectors_per_request", A.IdealSectorsPerRequest) &&
         M.mapOptional("sectors_per_request_typical", A.SectorsPerRequestTypical) &&
         M.mapOptional("sectors_per_request_worst", A.SectorsPerRequestWorst) &&
         M.mapOptional("array", A.Array) && M.mapOptional("array_dims", A.ArrayDims) &&
         M.mapOptional("element_bytes", A.ElementBytes) &&
         M.mapOptional("ideal_wavefronts", A.IdealWavefronts) &&
         M.mapOptional("unknown_reason", A.UnknownReason) &&
         M.mapOptional("unknown_loop_line", A.UnknownLoopLine) && M.mapOptional("notes", A.Notes);
}

// ---- sync ----

namespace {

Object locationJson(int64_t Line, int64_t Column) {
  return Object{{"line", Line}, {"column", Column}};
}

Object locationJson(const SiteLocation &L) { return locationJson(L.Line, L.Column); }

} // namespace

bool fromJSON(const Value &V, SiteLocation &L, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("line", L.Line) && M.map("column", L.Column);
}

bool fromJSON(const Value &V, BarrierSite &S, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("line", S.Line) && M.map("column", S.Column) && M.map("in_loop", S.InLoop) &&
         M.map("executions_per_thread", S.ExecutionsPerThread) &&
         M.mapOptional("divergent", S.Divergent) && M.mapOptional("redundant", S.Redundant);
}

bool fromJSON(const Value &V, DivergentBarrierSite &S, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("line", S.Line) && M.map("column", S.Column) &&
         M.mapOptional("condition", S.Condition);
}

bool fromJSON(const Value &V, MissingBarrierSite &S, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("line", S.Line) && M.map("column", S.Column) && M.map("write", S.Write) &&
         M.map("reader_thread", S.ReaderThread) && M.map("writer_thread", S.WriterThread);
}

bool fromJSON(const Value &V, WarHazardSite &S, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("line", S.Line) && M.map("column", S.Column) && M.map("write", S.Write) &&
         M.map("loop", S.Loop) && M.map("reader_thread", S.ReaderThread) &&
         M.map("writer_thread", S.WriterThread);
}

bool fromJSON(const Value &V, AtomicSite &S, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("line", S.Line) && M.map("column", S.Column) && M.map("space", S.Space) &&
         M.map("lanes_per_address", S.LanesPerAddress) &&
         M.map("threads_per_address", S.ThreadsPerAddress) &&
         M.map("shared_across_blocks", S.SharedAcrossBlocks) &&
         M.mapOptional("compiler_aggregates_warp", S.CompilerAggregatesWarp) &&
         M.map("executions_per_thread", S.ExecutionsPerThread) &&
         M.mapOptional("grid_blocks", S.GridBlocks);
}

Object SyncFacts::toJson() const {
  Object S{{"barriers", Barriers},
           {"barriers_in_loops", BarriersInLoops},
           {"barriers_per_thread", optInteger(BarriersPerThread)},
           {"divergent_barriers", DivergentBarriers}};
  if (BarriersPerThreadNote)
    S["barriers_per_thread_note"] = *BarriersPerThreadNote;
  llvm::json::Array Sites, Divergent, Redundant, Missing, War, AtomicSitesJson;
  for (const BarrierSite &B : BarrierSites) {
    Object O = locationJson(B.Line, B.Column);
    O["in_loop"] = B.InLoop;
    O["executions_per_thread"] = optInteger(B.ExecutionsPerThread);
    if (B.Divergent)
      O["divergent"] = true;
    if (B.Redundant)
      O["redundant"] = true;
    Sites.push_back(std::move(O));
  }
  for (const DivergentBarrierSite &D : DivergentBarrierSites) {
    Object O = locationJson(D.Line, D.Column);
    if (D.Condition)
      O["condition"] = locationJson(*D.Condition);
    Divergent.push_back(std::move(O));
  }
  for (const SiteLocation &R : RedundantBarrierSites)
    Redundant.push_back(locationJson(R));
  for (const MissingBarrierSite &M : MissingBarrierSites) {
    Object O = locationJson(M.Line, M.Column);
    O["write"] = locationJson(M.Write);
    O["reader_thread"] = M.ReaderThread;
    O["writer_thread"] = M.WriterThread;
    Missing.push_back(std::move(O));
  }
  for (const WarHazardSite &H : WarHazardSites) {
    Object O = locationJson(H.Line, H.Column);
    O["write"] = locationJson(H.Write);
    O["loop"] = locationJson(H.Loop);
    O["reader_thread"] = H.ReaderThread;
    O["writer_thread"] = H.WriterThread;
    War.push_back(std::move(O));
  }
  for (const AtomicSite &A : AtomicSites) {
    Object O = locationJson(A.Line, A.Column);
    O["space"] = A.Space;
    O["lanes_per_address"] = A.LanesPerAddress;
    O["threads_per_address"] = A.ThreadsPerAddress;
    O["shared_across_blocks"] = A.SharedAcrossBlocks;
    if (A.CompilerAggregatesWarp)
      O["compiler_aggregates_warp"] = true;
    O["executions_per_thread"] = optInteger(A.ExecutionsPerThread);
    if (A.GridBlocks)
      O["grid_blocks"] = *A.GridBlocks;
    AtomicSitesJson.push_back(std::move(O));
  }
  S["barrier_sites"] = std::move(Sites);
  S["divergent_barrier_sites"] = std::move(Divergent);
  S["redundant_barrier_sites"] = std::move(Redundant);
  S["missing_barrier_sites"] = std::move(Missing);
  S["war_hazard_sites"] = std::move(War);
  S["atomic_sites"] = std::move(AtomicSitesJson);
  S["warp_primitives"] = llvm::json::Array(WarpPrimitives);
  Object AtomicsJson;
  for (const auto &[Space, Classes] : Atomics) {
    Object C;
    for (const auto &[Class, N] : Classes)
      C[Class] = N;
    AtomicsJson[Space] = std::move(C);
  }
  S["atomics"] = std::move(AtomicsJson);
  return S;
}

bool fromJSON(const Value &V, SyncFacts &S, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("barriers", S.Barriers) && M.map("barriers_in_loops", S.BarriersInLoops) &&
         M.map("barriers_per_thread", S.BarriersPerThread) &&
         M.mapOptional("barriers_per_thread_note", S.BarriersPerThreadNote) &&
         M.map("divergent_barriers", S.DivergentBarriers) &&
         M.map("barrier_sites", S.BarrierSites) &&
         M.map("divergent_barrier_sites", S.DivergentBarrierSites) &&
         M.map("redundant_barrier_sites", S.RedundantBarrierSites) &&
         M.map("missing_barrier_sites", S.MissingBarrierSites) &&
         M.map("war_hazard_sites", S.WarHazardSites) && M.map("atomic_sites", S.AtomicSites) &&
         M.map("warp_primitives", S.WarpPrimitives) && M.map("atomics", S.Atomics);
}

Object AnalysisFault::toJson() const { return Object{{"analysis", Analysis}, {"fault", Fault}}; }

bool fromJSON(const Value &V, AnalysisFault &F, Path P) {
  ObjectMapper M(V, P);
  return M && M.map("analysis", F.Analysis) && M.map("fault", F.Fault);
}

} // namespace cudaperf
