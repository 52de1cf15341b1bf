//===- KernelFacts.cpp - The resources and occupancy sections, typed ---------------------===//
//
// The one place these sections' keys are spelled (docs/json-schema.md); the wire format is what
// the analyses wrote as JSON before (test/Occupancy and the analysis fixtures pin it).
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Report/KernelFacts.h"

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

} // namespace cudaperf
