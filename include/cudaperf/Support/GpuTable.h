// The one table of GPUs cudaperf knows: per compute capability, what an SM offers a kernel
// (the occupancy calculator's limits), and per device model, its SM count and, where we have
// them, its peak arithmetic rates and memory bandwidth (the roofline). Every number carries its
// source (lib/Support/GpuTable.cpp). Plain data: the analyzer, the occupancy sweep, lib/Features
// and the runtime read the same rows.
#pragma once

#include "cudaperf/Support/Arch.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudaperf::support {

// What one compute capability offers a kernel, per SM and per block.
struct GpuArch {
  int major = 0, minor = 0;
  const char *family = "";      // "Hopper"
  int warpSize = 32;
  int maxThreadsPerBlock = 1024;
  int maxThreadsPerSM = 0;      // resident threads (warp slots × 32)
  int maxBlocksPerSM = 0;       // resident blocks
  int registersPerSM = 0;
  int registersPerBlock = 0;
  int maxRegistersPerThread = 255;   // what ptxas assigns at most
  // The per-thread limit of the occupancy calculator (cuda_occupancy.h's
  // cudaOccRegAllocationMaxPerThread: 256 from 7.0 on), one above what ptxas assigns.
  int occupancyMaxRegistersPerThread = 256;
  int registerAllocUnit = 256;  // registers are given to a warp in units of this many
  int subPartitions = 4;        // a warp's registers come from one of these quarters of the file
  int sharedMemPerSM = 0;       // the largest carveout, bytes
  int sharedMemPerBlock = 49152; // without opt-in
  int sharedMemPerBlockOptin = 0; // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int reservedSharedMemPerBlock = 0; // taken by the driver for each resident block
  int sharedMemAllocUnit = 0;
  std::vector<int> carveoutStepsKiB; // the shared-memory sizes an SM can be configured to
  // Hardware barriers available per resident-block slot when the barrier limit applies
  // (computed as slots × this / barriers used); 0: no barrier limit on this architecture.
  int barriersPerBlockSlot = 0;
  const char *source = ""; // where these numbers come from

  int maxWarpsPerSM() const { return maxThreadsPerSM / warpSize; }
  std::string smName() const; // "sm_90"
};

// Every row, oldest first.
const std::vector<GpuArch> &gpuArchs();
// The row for compute capability major.minor, or null when cudaperf has none.
const GpuArch *findGpuArch(int major, int minor);
// Any spelling parseArch accepts ("sm_90", "sm_90a", "compute_90", "90", "9.0", "sm_100f").
const GpuArch *findGpuArch(std::string_view arch);

// Peak rates for the roofline. Precision indices: fp16, bf16, fp32, fp64; tensor input types:
// fp16, bf16, tf32, fp64, int8 (the work analysis's FlopCount.h order).
struct RooflinePeaks {
  double dramBytesPerSecond = 0;                    // datasheet
  std::optional<double> measuredDramBytesPerSecond; // measured copy bandwidth, when we have one
  std::array<double, 4> peak{};       // non-tensor FLOP/s
  std::array<double, 5> tensorPeak{}; // dense tensor-core FLOP/s (0: no tensor unit for the type)
  const char *source = "";
  const char *measuredSource = ""; // empty when there is no measurement

  double bandwidth() const { return measuredDramBytesPerSecond.value_or(dramBytesPerSecond); }
};

// A GPU model.
struct GpuDevice {
  const char *name; // "H200"
  int major, minor;
  int sms;
  const char *smsSource;
  std::optional<RooflinePeaks> roofline; // for the devices whose peaks the table has
};

const std::vector<GpuDevice> &gpuDevices();
// Case-insensitive, separators ignored: "h100-sxm", "H100 SXM" and "H100_SXM" are the same.
const GpuDevice *findGpuDevice(std::string_view name);
// The device assumed for a compute capability when none is named (for waves): the project's
// H200 for 9.0, otherwise the first device of that capability in the table.
const GpuDevice *defaultGpuDevice(int major, int minor);
// The first device of that capability with roofline peaks: H200 for 9.0, A100 for 8.0, L40S
// for 8.9; null for the others.
const GpuDevice *defaultRooflineDevice(int major, int minor);

// The roofline lower bound on a kernel's time:
//   compute time = sum over precisions of FLOP / peak rate (+ tensor FLOP / tensor rate, or the
//                  fp64 rate where the device has no tensor unit for the type)
//   memory time  = DRAM bytes / bandwidth (the measured ceiling where the row has one)
//   time = max(compute, memory); bound = whichever is larger.
struct RooflineInput {
  std::array<double, 4> flops{};       // by precision
  std::array<double, 5> tensorFlops{}; // by tensor input type
  double dramBytes = 0;
};

struct RooflineResult {
  double computeSeconds = 0, memorySeconds = 0;
  double seconds() const { return computeSeconds > memorySeconds ? computeSeconds : memorySeconds; }
  const char *bound() const { return computeSeconds > memorySeconds ? "compute" : "memory"; }
};

RooflineResult rooflineTime(const RooflinePeaks &peaks, const RooflineInput &in);

} // namespace cudaperf::support
