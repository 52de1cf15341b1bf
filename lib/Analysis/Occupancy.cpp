//===- Occupancy.cpp - Theoretical occupancy and waves per kernel ------------------------===//
//
// Fills KernelReport::Occupancy from the kernel's resources (the Resources analysis runs first)
// and its resolved launch configuration, with the calculator of lib/Occupancy. Keys
// (docs/json-schema.md): arch, device, sms, block_size, dynamic_smem_bytes, registers,
// static_smem_bytes, active_blocks_per_sm, active_warps_per_sm, max_warps_per_sm, theoretical,
// limiter, limits{...}, allocated_registers_per_block, allocated_smem_per_block, and when the
// grid is known grid_blocks, waves, full_waves, last_wave_fraction, blocks_per_wave; per constant
// launch site launch_sites[{line, column, grid_blocks, block_size, ..., waves}]; raise{...}
// when a single change lifts occupancy a step; problem when the block cannot launch.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/AnalysisContext.h"
#include "cudaperf/Analysis/OccupancyFacts.h"
#include "cudaperf/Occupancy/Occupancy.h"

namespace cudaperf {

using namespace occupancy;

std::optional<KernelOccupancyInput> occupancyInput(const KernelReport &K, llvm::StringRef Arch,
                                                   std::string *Why, llvm::StringRef Gpu) {
  const ArchSpec *A = support::findGpuArch(std::string_view(Arch.data(), Arch.size()));
  if (!A) {
    if (Why)
      *Why = "no occupancy table row for " + Arch.str();
    return std::nullopt;
  }
  auto Regs = K.Resources.getInteger("registers");
  if (!Regs) {
    if (Why)
      *Why = "the kernel's register count is unknown";
    return std::nullopt;
  }
  KernelOccupancyInput In;
  In.Arch = A;
  In.Device = support::defaultGpuDevice(A->major, A->minor);
  if (const support::GpuDevice *Named = support::findGpuDevice(std::string_view(Gpu.data(), Gpu.size()));
      Named && Named->major == A->major && Named->minor == A->minor)
    In.Device = Named;
  In.Kernel.RegistersPerThread = int(*Regs);
  In.Kernel.StaticSharedBytes = int(K.Resources.getInteger("static_smem_bytes").value_or(0));
  // The runtime's calculator counts one barrier for every kernel; more when ptxas reports more.
  In.Kernel.Barriers = std::max<int>(1, int(K.Resources.getInteger("barriers").value_or(0)));
  if (K.LaunchBoundsMaxThreads && *K.LaunchBoundsMaxThreads > 0)
    In.Kernel.MaxThreadsPerBlock = int(*K.LaunchBoundsMaxThreads);
  In.Launch.BlockThreads = int(K.Launch.Block.count());
  In.Launch.DynamicSharedBytes = int(K.Launch.DynamicSmemBytes);
  // A launch with more dynamic shared memory than the default per-block limit only works after
  // cudaFuncSetAttribute(MaxDynamicSharedMemorySize); assume the program did so.
  int DefaultMaxDynamic = std::max(0, A->sharedMemPerBlock - In.Kernel.StaticSharedBytes);
  if (In.Launch.DynamicSharedBytes > DefaultMaxDynamic)
    In.Kernel.MaxDynamicSharedBytes =
        std::max(In.Launch.DynamicSharedBytes, A->sharedMemPerBlockOptin - In.Kernel.StaticSharedBytes);
  return In;
}

namespace {

class OccupancyAnalysis : public KernelAnalysis {
public:
  llvm::StringRef name() const override { return "occupancy"; }
  bool evaluatesLanes() const override { return false; }

  void run(AnalysisContext &Ctx, llvm::Function *F, KernelReport &K) override {
    std::string Why;
    auto In = occupancyInput(K, Ctx.options().Arch, &Why, Ctx.options().Gpu);
    if (!In) {
      if (!K.Resources.empty())
        K.Notes.push_back("occupancy not computed: " + Why);
      return;
    }
    OccupancyResult R = computeOccupancy(*In->Arch, In->Kernel, In->Launch);
    llvm::json::Object &O = K.Occupancy;
    O["arch"] = In->Arch->smName();
    if (In->Device) {
      O["device"] = In->Device->name;
      O["sms"] = In->Device->sms;
    }
    O["block_size"] = In->Launch.BlockThreads;
    O["dynamic_smem_bytes"] = In->Launch.DynamicSharedBytes;
    O["launch_origin"] = toString(K.Launch.Origin);
    O["registers"] = In->Kernel.RegistersPerThread;
    O["static_smem_bytes"] = In->Kernel.StaticSharedBytes;
    O["active_blocks_per_sm"] = R.ActiveBlocksPerSM;
    O["active_warps_per_sm"] = R.ActiveWarpsPerSM;
    O["max_warps_per_sm"] = R.MaxWarpsPerSM;
    O["theoretical"] = R.Theoretical;
    O["limiter"] = toString(R.Limit);
    llvm::json::Object Limits;
    auto Put = [&](const char *Key, int Blocks) {
      if (Blocks != INT_MAX)
        Limits[Key] = Blocks;
    };
    Put("registers", R.BlocksByRegisters);
    Put("shared_memory", R.BlocksBySharedMem);
    Put("warps", R.BlocksByWarps);
    Put("blocks", R.BlocksByBlockSlots);
    Put("barriers", R.BlocksByBarriers);
    O["limits"] = std::move(Limits);
    O["allocated_registers_per_block"] = R.RegistersPerBlock;
    O["allocated_smem_per_block"] = R.SharedBytesPerBlock;
    if (!R.Problem.empty())
      O["problem"] = R.Problem;

    if (K.Launch.Grid && In->Device)
      if (auto W = computeWaves(K.Launch.Grid->count(), R.ActiveBlocksPerSM, In->Device->sms)) {
        O["grid_blocks"] = K.Launch.Grid->count();
        O["blocks_per_wave"] = W->BlocksPerWave;
        O["waves"] = W->Waves;
        O["full_waves"] = W->FullWaves;
        O["last_wave_fraction"] = W->LastWaveFraction;
      }

    // Every constant launch site separately: one kernel is often launched with several grids.
    llvm::json::Array Sites;
    for (const LaunchSite &Site : K.LaunchSites) {
      if (!Site.isConstant() || !In->Device)
        continue;
      LaunchShape L = In->Launch;
      L.BlockThreads = int(Site.Block->count());
      L.DynamicSharedBytes = int(*Site.DynamicSmemBytes);
      OccupancyResult SR = computeOccupancy(*In->Arch, In->Kernel, L);
      llvm::json::Object S{{"line", Site.Loc.Line},
                           {"column", Site.Loc.Column},
                           {"grid_blocks", Site.Grid->count()},
                           {"block_size", L.BlockThreads},
                           {"dynamic_smem_bytes", L.DynamicSharedBytes},
                           {"active_blocks_per_sm", SR.ActiveBlocksPerSM},
                           {"theoretical", SR.Theoretical}};
      if (auto W = computeWaves(Site.Grid->count(), SR.ActiveBlocksPerSM, In->Device->sms)) {
        S["blocks_per_wave"] = W->BlocksPerWave;
        S["waves"] = W->Waves;
        S["last_wave_fraction"] = W->LastWaveFraction;
      }
      Sites.push_back(std::move(S));
    }
    if (!Sites.empty())
      O["launch_sites"] = std::move(Sites);

    if (auto S = suggestRaise(*In->Arch, In->Kernel, In->Launch))
      O["raise"] = llvm::json::Object{{"change", toString(S->Change)},
                                      {"value", S->Value},
                                      {"active_blocks_per_sm", S->ActiveBlocksPerSM},
                                      {"theoretical", S->Theoretical},
                                      {"text", S->Text}};
  }
};

} // namespace

std::unique_ptr<KernelAnalysis> createOccupancyAnalysis() {
  return std::make_unique<OccupancyAnalysis>();
}

} // namespace cudaperf
