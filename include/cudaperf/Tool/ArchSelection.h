//===- ArchSelection.h - Which architecture and GPU cudaperf-analyze analyses for -*- C++ -*-===//
//
// The architecture comes from, in this order: --gpu NAME (the device's compute capability),
// --arch, the file's compile command (--cuda-gpu-arch=, --offload-arch=, nvcc's -arch,
// --gpu-architecture, -code/--gpu-code, -gencode/--generate-code), else sm_90. Clang parses the
// device code for the newest architecture it knows at or below the requested one (clang 22 knows
// every architecture of the GPU table, sm_100/103/120 included; clang 19 parsed those as sm_90);
// the occupancy and roofline tables and NVIDIA's compiler (registers) use the requested one.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_TOOL_ARCHSELECTION_H
#define CUDAPERF_TOOL_ARCHSELECTION_H

#include <string>
#include <vector>

namespace cudaperf {

/// The real architectures a compile command targets, as "sm_80" (suffix kept: "sm_90a"), in the
/// order they appear, without repeats; a virtual architecture (compute_80) counts when no real one
/// is named. "native", "all" and "all-major" name none.
std::vector<std::string> archsOfCompileCommand(const std::vector<std::string> &Args);

/// The newest of \p Archs (by compute capability; empty when \p Archs is).
std::string newestArch(const std::vector<std::string> &Archs);

/// The architecture clang parses the device code as for \p Arch: \p Arch itself when clang knows
/// it, else the newest architecture clang knows at or below it.
std::string clangDeviceArch(const std::string &Arch);

/// "sm_70, sm_75, ..." — the GPU table's architectures.
std::string knownArchList();
/// "H200 (sm_90), H100-SXM (sm_90), ..." — the GPU table's devices.
std::string knownGpuList();

} // namespace cudaperf

#endif
