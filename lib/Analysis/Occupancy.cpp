//===- Occupancy.cpp - Theoretical occupancy and waves per kernel ------------------------===//
//
// Fills KernelReport::Occupancy, an OccupancyFacts (cudaperf/Report/KernelFacts.h, which spells
// the keys of docs/json-schema.md), from the kernel's resources (the Resources analysis runs
// first) and its resolved launch configuration, with the calculator of lib/Occupancy: the
// occupancy of the launch, its limiter and per-resource limits, the waves when the grid is known,
// each constant launch site separately, and the one change that lifts occupancy a step.
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
  if (!K.Resources) {
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
  In.Kernel.RegistersPerThread = int(K.Resources->Registers);
  In.Kernel.StaticSharedBytes = int(K.Resources->StaticSmemBytes);
  // The runtime's calculator counts one barrier for every kernel; more when ptxas reports more.
  In.Kernel.Barriers = std::max<int>(1, int(K.Resources->Barriers));
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
      if (K.Resources)
        K.Notes.push_back("occupancy not computed: " + Why);
      return;
    }
    OccupancyResult R = computeOccupancy(*In->Arch, In->Kernel, In->Launch);
    OccupancyFacts O;
    O.Arch = In->Arch->smName();
    if (In->Device) {
      O.Device = In->Device->name;
      O.SMs = In->Device->sms;
    }
    O.BlockSize = In->Launch.BlockThreads;
    O.DynamicSmemBytes = In->Launch.DynamicSharedBytes;
    O.LaunchOrigin = toString(K.Launch.Origin);
    O.Registers = In->Kernel.RegistersPerThread;
    O.StaticSmemBytes = In->Kernel.StaticSharedBytes;
    O.ActiveBlocksPerSM = R.ActiveBlocksPerSM;
    O.ActiveWarpsPerSM = R.ActiveWarpsPerSM;
    O.MaxWarpsPerSM = R.MaxWarpsPerSM;
    O.Theoretical = R.Theoretical;
    O.Limiter = toString(R.Limit);
    auto Limit = [](int Blocks) -> std::optional<int64_t> {
      if (Blocks == INT_MAX)
        return std::nullopt;
      return Blocks;
    };
    O.Limits.Registers = Limit(R.BlocksByRegisters);
    O.Limits.SharedMemory = Limit(R.BlocksBySharedMem);
    O.Limits.Warps = Limit(R.BlocksByWarps);
    O.Limits.Blocks = Limit(R.BlocksByBlockSlots);
    O.Limits.Barriers = Limit(R.BlocksByBarriers);
    O.AllocatedRegistersPerBlock = R.RegistersPerBlock;
    O.AllocatedSmemPerBlock = R.SharedBytesPerBlock;
    O.Problem = R.Problem;

    if (K.Launch.Grid && In->Device)
      if (auto W = computeWaves(K.Launch.Grid->count(), R.ActiveBlocksPerSM, In->Device->sms)) {
        O.GridBlocks = K.Launch.Grid->count();
        O.Waves = WaveFacts{W->BlocksPerWave, W->Waves, W->FullWaves, W->LastWaveFraction};
      }

    // Every constant launch site separately: one kernel is often launched with several grids.
    for (const LaunchSite &Site : K.LaunchSites) {
      if (!Site.isConstant() || !In->Device)
        continue;
      LaunchShape L = In->Launch;
      L.BlockThreads = int(Site.Block->count());
      L.DynamicSharedBytes = int(*Site.DynamicSmemBytes);
      OccupancyResult SR = computeOccupancy(*In->Arch, In->Kernel, L);
      LaunchSiteOccupancy S;
      S.Line = Site.Loc.Line;
      S.Column = Site.Loc.Column;
      S.GridBlocks = Site.Grid->count();
      S.BlockSize = L.BlockThreads;
      S.DynamicSmemBytes = L.DynamicSharedBytes;
      S.ActiveBlocksPerSM = SR.ActiveBlocksPerSM;
      S.Theoretical = SR.Theoretical;
      if (auto W = computeWaves(Site.Grid->count(), SR.ActiveBlocksPerSM, In->Device->sms))
        S.Waves = WaveFacts{W->BlocksPerWave, W->Waves, W->FullWaves, W->LastWaveFraction};
      O.LaunchSites.push_back(std::move(S));
    }

    if (auto S = suggestRaise(*In->Arch, In->Kernel, In->Launch))
      O.Raise = OccupancyRaise{toString(S->Change), S->Value, S->ActiveBlocksPerSM, S->Theoretical,
                               S->Text};
    K.Occupancy = std::move(O);
  }
};

} // namespace

std::unique_ptr<KernelAnalysis> createOccupancyAnalysis() {
  return std::make_unique<OccupancyAnalysis>();
}

} // namespace cudaperf
