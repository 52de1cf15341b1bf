//===- Roofline.h - Peak rates of GPUs and the roofline time bound -*- C++ -*-===//
//
// A table of peak arithmetic rates and memory bandwidths, one row per device with the source of
// every number (lib/Analysis/Roofline.cpp), and the roofline lower bound on a kernel's time:
//   compute time = sum over precisions of FLOP / peak rate (+ tensor FLOP / tensor rate)
//   memory time  = DRAM bytes / bandwidth (the measured ceiling where the row has one)
//   time = max(compute, memory); bound = whichever is larger.
// Pure C++: no LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_ROOFLINE_H
#define CUDAPERF_ANALYSIS_ROOFLINE_H

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf {

struct RooflineDevice {
  const char *Name; // as in the occupancy table: "H200", "H100-SXM", "A100", "L40S"
  int Major, Minor;
  double DramBytesPerSecond;               // datasheet
  std::optional<double> MeasuredDramBytesPerSecond; // measured copy bandwidth, when we have one
  // Non-tensor peaks, FLOP/s, indexed like Precision (fp16, bf16, fp32, fp64).
  std::array<double, 4> Peak;
  // Dense tensor-core peaks, FLOP/s, indexed like tensorTypeName (fp16, bf16, tf32, fp64, int8).
  std::array<double, 5> TensorPeak;
  const char *Source;
  const char *MeasuredSource; // empty when there is no measurement

  double bandwidth() const { return MeasuredDramBytesPerSecond.value_or(DramBytesPerSecond); }
};

const std::vector<RooflineDevice> &allRooflineDevices();
/// The device assumed for a compute capability: H200 for 9.0, A100 for 8.0, L40S for 8.9.
const RooflineDevice *rooflineDeviceForArch(int Major, int Minor);
const RooflineDevice *findRooflineDevice(std::string_view Name);

struct RooflineInput {
  std::array<double, 4> Flops{};       // by precision
  std::array<double, 5> TensorFlops{}; // by tensor input type
  double DramBytes = 0;
};

struct RooflineResult {
  double ComputeSeconds = 0, MemorySeconds = 0;
  double seconds() const { return ComputeSeconds > MemorySeconds ? ComputeSeconds : MemorySeconds; }
  const char *bound() const { return ComputeSeconds > MemorySeconds ? "compute" : "memory"; }
};

RooflineResult rooflineTime(const RooflineDevice &D, const RooflineInput &In);

} // namespace cudaperf

#endif
