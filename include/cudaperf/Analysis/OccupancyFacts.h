//===- OccupancyFacts.h - From a KernelReport to the occupancy calculator -----*- C++ -*-===//
//
// The bridge between the analyzer's facts (resources from NVIDIA's compiler, the resolved launch
// configuration, __launch_bounds__) and the LLVM-free calculator in cudaperf/Occupancy, plus the
// --occupancy-table printer.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_OCCUPANCYFACTS_H
#define CUDAPERF_ANALYSIS_OCCUPANCYFACTS_H

#include "cudaperf/Occupancy/Occupancy.h"
#include "cudaperf/Report/KernelReport.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>

namespace cudaperf {

struct KernelOccupancyInput {
  const occupancy::ArchSpec *Arch = nullptr;
  const occupancy::DeviceSpec *Device = nullptr; // for SM counts; null when the table has none
  occupancy::KernelResources Kernel;
  occupancy::LaunchShape Launch;
};

/// The calculator's inputs for \p K on \p Arch ("sm_90"), from K.Resources and K.Launch; none
/// (with the reason in \p Why) when the architecture or the register count is unknown.
/// \p Gpu names the device for SM counts (--gpu); empty: the architecture's default device.
std::optional<KernelOccupancyInput> occupancyInput(const KernelReport &K, llvm::StringRef Arch,
                                                   std::string *Why = nullptr,
                                                   llvm::StringRef Gpu = "");

/// `cudaperf-analyze --occupancy-table`: for each kernel, occupancy against block sizes 32..1024
/// (up to the kernel's __launch_bounds__), with the limiter at each size.
void printOccupancyTable(const FileReport &R, llvm::StringRef Arch, llvm::raw_ostream &OS);

} // namespace cudaperf

#endif
