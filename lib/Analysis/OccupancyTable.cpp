//===- OccupancyTable.cpp - cudaperf-analyze --occupancy-table ---------------------------===//
//
// One table per kernel: theoretical occupancy for each block size from 32 to 1024 threads (or
// the kernel's __launch_bounds__), with the kernel's registers, static shared memory and the
// launch's dynamic shared memory held fixed. The launched block size is marked with '*'.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/OccupancyFacts.h"
#include "llvm/Support/Format.h"

namespace cudaperf {

using namespace occupancy;

void printOccupancyTable(const FileReport &R, llvm::StringRef Arch, llvm::raw_ostream &OS) {
  for (const KernelReport &K : R.Kernels) {
    std::string Why;
    auto In = occupancyInput(K, Arch, &Why);
    if (!In) {
      OS << "occupancy of " << K.Name << ": not available (" << Why << ")\n\n";
      continue;
    }
    OS << "occupancy of " << K.Name << " on " << In->Arch->smName();
    if (In->Device)
      OS << " (" << In->Device->name << ", " << In->Device->sms << " SMs)";
    OS << ": " << In->Kernel.RegistersPerThread << " registers, " << In->Kernel.StaticSharedBytes
       << " B static + " << In->Launch.DynamicSharedBytes << " B dynamic shared memory";
    if (K.Resources)
      OS << " [" << K.Resources->Source << "]";
    OS << "\n";
    OS << "   block  blocks/SM  warps/SM  occupancy  limiter\n";
    for (const auto &[Threads, Occ] :
         occupancyByBlockSize(*In->Arch, In->Kernel, In->Launch.DynamicSharedBytes,
                              In->Launch.CarveoutPercent)) {
      OS << (Threads == In->Launch.BlockThreads ? " *" : "  ") << llvm::format("%5d", Threads)
         << llvm::format("  %9d  %8d  %8.1f%%  ", Occ.ActiveBlocksPerSM, Occ.ActiveWarpsPerSM,
                         Occ.Theoretical * 100)
         << toString(Occ.Limit) << "\n";
    }
    OS << "\n";
  }
}

} // namespace cudaperf
