//===- GpuTable.cpp - Per-architecture limits, device SM counts and roofline peaks ------===//
//
// One row per compute capability. Sources, abbreviated in each row's Source string:
//  [PG]  CUDA C++ Programming Guide 13.0, "Compute Capabilities": table "Technical
//        Specifications per Compute Capability" (threads, warps and blocks per SM, registers per
//        SM/block/thread, shared memory per SM and per block) and the per-architecture "Shared
//        Memory" sections (the carveout sizes an SM can be configured to; the 1 KB the system
//        reserves per block from 8.0 on).
//  [OCC] /usr/local/cuda/include/cuda_occupancy.h of CUDA 13.0, read as documentation of the
//        runtime's rules: register allocation unit (256) and sub-partitions (4), shared-memory
//        allocation unit (256 B on 7.x, 128 B from 8.0), resident blocks per SM where it differs
//        from [PG], the carveout steps, and barriers (2 per block slot on 9.0 and 10.0, 1 on 12.0;
//        applied from 9.0 on).
//  [H200] measured with cudaGetDeviceProperties on the project's H200 (docs/accuracy.md,
//        ENVIRONMENT.md): 65,536 registers/SM, 233,472 B shared/SM, 232,448 B opt-in per block,
//        2,048 threads/SM, 32 blocks/SM, 1,024 B reserved per block.
//
// Device rows: SM counts from NVIDIA's product pages and architecture whitepapers, as named in
// each row; roofline peaks from the datasheets named in each peaks entry. Tensor peaks are the
// dense rates: NVIDIA's datasheets print sparse rates (2x) with a footnote.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Support/GpuTable.h"

#include <cctype>

namespace cudaperf::support {

namespace {

constexpr int KiB = 1024;
constexpr double T = 1e12; // TFLOP/s and TB/s

GpuArch row(int major, int minor, const char *family, int threadsPerSM, int blocksPerSM,
            int smemPerSMKiB, int optinPerBlockKiB, int reservedPerBlock, int smemUnit,
            std::vector<int> carveoutKiB, int barriersPerSlot, const char *source) {
  GpuArch a;
  a.major = major;
  a.minor = minor;
  a.family = family;
  a.maxThreadsPerSM = threadsPerSM;
  a.maxBlocksPerSM = blocksPerSM;
  a.registersPerSM = 64 * KiB;    // [PG]: 64K 32-bit registers per SM for every 7.0+ row
  a.registersPerBlock = 64 * KiB; // [PG]
  a.maxRegistersPerThread = 255;  // [PG]
  a.occupancyMaxRegistersPerThread = 256; // [OCC] cudaOccRegAllocationMaxPerThread (7.0 on)
  a.registerAllocUnit = 256;      // [OCC] cudaOccRegAllocationGranularity
  a.subPartitions = 4;            // [OCC] cudaOccSubPartitionsPerMultiprocessor
  a.sharedMemPerSM = smemPerSMKiB * KiB;
  a.sharedMemPerBlock = 48 * KiB; // [PG] without opt-in
  a.sharedMemPerBlockOptin = optinPerBlockKiB * KiB;
  a.reservedSharedMemPerBlock = reservedPerBlock;
  a.sharedMemAllocUnit = smemUnit;
  a.carveoutStepsKiB = std::move(carveoutKiB);
  a.barriersPerBlockSlot = barriersPerSlot;
  a.source = source;
  return a;
}

std::vector<GpuArch> buildArchTable() {
  const std::vector<int> volta = {0, 8, 16, 32, 64, 96};
  const std::vector<int> turing = {32, 64};
  const std::vector<int> ga100 = {0, 8, 16, 32, 64, 100, 132, 164};
  const std::vector<int> ga10x = {0, 8, 16, 32, 64, 100};
  const std::vector<int> hopper = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  return {
      row(7, 0, "Volta", 2048, 32, 96, 96, 0, 256, volta, 0,
          "[PG] 7.0: 64 warps, 32 blocks, 96 KB shared/SM and per block (opt-in); carveout "
          "0/8/16/32/64/96 KB; [OCC] 256 B shared unit, no reservation"),
      row(7, 5, "Turing", 1024, 16, 64, 64, 0, 256, turing, 0,
          "[PG] 7.5: 32 warps, 16 blocks, 64 KB shared/SM and per block (opt-in); carveout 32/64 KB; "
          "[OCC] 256 B shared unit"),
      row(8, 0, "Ampere GA100", 2048, 32, 164, 163, 1024, 128, ga100, 0,
          "[PG] 8.0: 64 warps, 32 blocks, 164 KB shared/SM, 163 KB opt-in per block, 1 KB reserved "
          "per block; carveout 0/8/16/32/64/100/132/164 KB; [OCC] 128 B unit"),
      row(8, 6, "Ampere GA10x", 1536, 16, 100, 99, 1024, 128, ga10x, 0,
          "[PG] 8.6: 48 warps, 16 blocks, 100 KB shared/SM, 99 KB opt-in, 1 KB reserved; carveout "
          "0/8/16/32/64/100 KB; [OCC] 128 B unit"),
      row(8, 7, "Ampere GA10B (Orin)", 1536, 16, 164, 163, 1024, 128, ga100, 0,
          "[PG] 8.7: 48 warps, 16 blocks, 164 KB shared/SM, 163 KB opt-in, 1 KB reserved; [OCC] "
          "carveout steps as 8.0, 128 B unit"),
      row(8, 9, "Ada", 1536, 24, 100, 99, 1024, 128, ga10x, 0,
          "[PG] 8.9: 48 warps, 24 blocks, 100 KB shared/SM, 99 KB opt-in, 1 KB reserved; carveout "
          "as 8.6; [OCC] 128 B unit"),
      row(9, 0, "Hopper", 2048, 32, 228, 227, 1024, 128, hopper, 2,
          "[PG] 9.0: 64 warps, 32 blocks, 228 KB shared/SM, 227 KB opt-in, 1 KB reserved; carveout "
          "0/8/16/32/64/100/132/164/196/228 KB; [OCC] 128 B unit, barrier limit 2 per block slot; "
          "[H200] all per-SM numbers confirmed"),
      row(10, 0, "Blackwell B200", 2048, 32, 228, 227, 1024, 128, hopper, 2,
          "[PG] 10.0: 64 warps, 32 blocks, 228 KB shared/SM, 227 KB opt-in, 1 KB reserved; [OCC] "
          "carveout steps as 9.0, 128 B unit, barrier limit 2 per block slot"),
      row(10, 3, "Blackwell Ultra B300", 2048, 32, 228, 227, 1024, 128, hopper, 2,
          "[PG] 10.3: 64 warps, 32 blocks, 228 KB shared/SM, 227 KB opt-in, 1 KB reserved; [OCC] "
          "carveout steps as 10.0 (minors 0, 1, 3), 32 resident blocks and 2 barriers per block "
          "slot (the default of major 10), 128 B unit"),
      row(12, 0, "Blackwell GB20x", 1536, 24, 100, 99, 1024, 128, ga10x, 1,
          "[PG] 12.0: 48 warps, 100 KB shared/SM, 99 KB opt-in, 1 KB reserved; [OCC] 24 resident "
          "blocks, carveout 0..100 KB as 8.6, 128 B unit, barrier limit 1 per block slot"),
  };
}

RooflinePeaks peaks(double dram, std::optional<double> measuredDram, std::array<double, 4> peak,
                    std::array<double, 5> tensorPeak, const char *source, const char *measuredSource) {
  RooflinePeaks p;
  p.dramBytesPerSecond = dram;
  p.measuredDramBytesPerSecond = measuredDram;
  p.peak = peak;
  p.tensorPeak = tensorPeak;
  p.source = source;
  p.measuredSource = measuredSource;
  return p;
}

// The H200 and H100 SXM share SMs and clocks: only memory differs.
RooflinePeaks hopperPeaks(double dram, std::optional<double> measuredDram, const char *source,
                          const char *measuredSource) {
  return peaks(dram, measuredDram, {133.8 * T, 133.8 * T, 67 * T, 34 * T},
               {989.5 * T, 989.5 * T, 494.7 * T, 67 * T, 1979 * T}, source, measuredSource);
}

std::vector<GpuDevice> buildDeviceTable() {
  return {
      {"H200", 9, 0, 132, "measured: cudaDeviceProp::multiProcessorCount on the project's H200",
       hopperPeaks(4.8 * T, 4.3 * T,
                   "NVIDIA H200 Tensor Core GPU datasheet (SXM): HBM3e 4.8 TB/s, FP32 67, FP64 34, FP64 "
                   "Tensor 67, TF32/BF16/FP16/INT8 Tensor 989/1979/1979/3958 with sparsity; non-tensor "
                   "FP16/BF16 133.8 (H100 whitepaper, same SMs and clocks)",
                   "measured on the project's H200: device-to-device copy ~4.3 TB/s (bytes read + "
                   "written), shared/guide/ENVIRONMENT.md")},
      {"H100-SXM", 9, 0, 132, "NVIDIA H100 Tensor Core GPU Architecture whitepaper: H100 SXM5 132 SMs",
       hopperPeaks(3.35 * T, std::nullopt,
                   "NVIDIA H100 Tensor Core GPU datasheet (SXM): HBM3 3.35 TB/s, FP32 67, FP64 34, FP64 "
                   "Tensor 67, TF32/BF16/FP16/INT8 Tensor 989/1979/1979/3958 with sparsity; H100 "
                   "whitepaper: FP16/BF16 non-tensor 133.8",
                   "")},
      {"H100-PCIe", 9, 0, 114, "NVIDIA H100 whitepaper: H100 PCIe 114 SMs", std::nullopt},
      {"GH200", 9, 0, 132, "NVIDIA Grace Hopper Superchip whitepaper: 132 SMs", std::nullopt},
      {"A100", 8, 0, 108, "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 108 SMs",
       peaks(2.039 * T, std::nullopt, {78 * T, 39 * T, 19.5 * T, 9.7 * T},
             {312 * T, 312 * T, 156 * T, 19.5 * T, 624 * T},
             "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM): HBM2e 2,039 GB/s, FP32 19.5, FP64 9.7, "
             "FP64 Tensor 19.5, TF32 156, BF16/FP16 312, INT8 624 (dense); A100 whitepaper: FP16 "
             "non-tensor 78, BF16 non-tensor 39",
             "")},
      {"A30", 8, 0, 56, "NVIDIA A30 datasheet: 56 SMs (3,584 CUDA cores / 64)", std::nullopt},
      {"V100", 7, 0, 80, "NVIDIA Tesla V100 GPU Architecture whitepaper: 80 SMs", std::nullopt},
      {"T4", 7, 5, 40, "NVIDIA Turing GPU Architecture whitepaper: Tesla T4 40 SMs", std::nullopt},
      {"A10", 8, 6, 72, "NVIDIA A10 datasheet: 72 SMs (9,216 CUDA cores / 128)", std::nullopt},
      {"RTX-3090", 8, 6, 82, "NVIDIA Ampere GA102 GPU Architecture whitepaper: RTX 3090 82 SMs", std::nullopt},
      {"Jetson-AGX-Orin", 8, 7, 16, "NVIDIA Jetson AGX Orin series technical brief: 16 SMs (2,048 CUDA cores)",
       std::nullopt},
      {"L4", 8, 9, 58, "NVIDIA Ada GPU Architecture whitepaper: L4 58 SMs", std::nullopt},
      {"L40S", 8, 9, 142, "NVIDIA L40S datasheet: 142 SMs (18,176 CUDA cores / 128)",
       peaks(0.864 * T, std::nullopt, {91.6 * T, 91.6 * T, 91.6 * T, 1.43 * T},
             {362 * T, 362 * T, 183 * T, 0, 733 * T},
             "NVIDIA L40S datasheet: GDDR6 864 GB/s, FP32 91.6, TF32 Tensor 183, BF16/FP16 Tensor "
             "362.05, INT8 733 (dense); Ada whitepaper: FP16 non-tensor at the FP32 rate, FP64 at 1/64 "
             "of FP32 (no FP64 tensor cores)",
             "")},
      {"RTX-4090", 8, 9, 128, "NVIDIA Ada GPU Architecture whitepaper: RTX 4090 128 SMs", std::nullopt},
      {"B200", 10, 0, 148, "NVIDIA Blackwell architecture technical brief: B200 148 SMs",
       peaks(8 * T, std::nullopt, {150 * T, 150 * T, 75 * T, 37 * T},
             {2250 * T, 2250 * T, 1125 * T, 37 * T, 4500 * T},
             "NVIDIA HGX B200 datasheet, per GPU (the 8-GPU board's figures / 8): HBM3e 8 TB/s, FP32 "
             "75, FP64 and FP64 Tensor 37, TF32/FP16/BF16/INT8 Tensor 2.25/4.5/4.5/9 P with "
             "sparsity (dense: half); non-tensor FP16/BF16 at twice FP32 as on Hopper",
             "")},
      {"GB200", 10, 0, 148, "NVIDIA Blackwell architecture technical brief: the B200 of GB200 148 SMs",
       std::nullopt},
      {"B300", 10, 3, 160,
       "NVIDIA technical blog 'Inside NVIDIA Blackwell Ultra' (2025): B300 (Blackwell Ultra) 160 SMs",
       peaks(8 * T, std::nullopt, {150 * T, 150 * T, 75 * T, 1.25 * T},
             {2250 * T, 2250 * T, 1125 * T, 1.25 * T, 4500 * T},
             "NVIDIA HGX B300 datasheet, per GPU (the 8-GPU board's figures / 8): HBM3e 8 TB/s, FP32 "
             "75, FP64 and FP64 Tensor 1.25, TF32/FP16/BF16/INT8 Tensor as B200 (dense: half the "
             "sparse figures)",
             "")},
      {"RTX-5090", 12, 0, 170, "NVIDIA RTX Blackwell GPU Architecture whitepaper: RTX 5090 170 SMs",
       peaks(1.792 * T, std::nullopt, {104.8 * T, 104.8 * T, 104.8 * T, 1.64 * T},
             {209.5 * T, 209.5 * T, 104.8 * T, 0, 838 * T},
             "NVIDIA RTX Blackwell GPU Architecture whitepaper, RTX 5090: GDDR7 1,792 GB/s, FP32 "
             "104.8, FP16/BF16 Tensor with FP32 accumulate 209.5 dense (419 sparse; 838 sparse with "
             "FP16 accumulate), TF32 Tensor 104.8, INT8 Tensor 838 dense; FP16 non-tensor at the FP32 "
             "rate and FP64 at 1/64 of FP32 (no FP64 tensor cores) as on Ada",
             "")},
      {"RTX-PRO-6000", 12, 0, 188,
       "NVIDIA RTX PRO 6000 Blackwell datasheet: 24,064 CUDA cores / 128 per SM = 188 SMs",
       std::nullopt},
  };
}

std::string normalizedName(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

} // namespace

std::string GpuArch::smName() const { return "sm_" + std::to_string(major * 10 + minor); }

const std::vector<GpuArch> &gpuArchs() {
  static const std::vector<GpuArch> table = buildArchTable();
  return table;
}

const GpuArch *findGpuArch(int major, int minor) {
  for (const GpuArch &a : gpuArchs())
    if (a.major == major && a.minor == minor)
      return &a;
  return nullptr;
}

const GpuArch *findGpuArch(std::string_view arch) {
  std::optional<ComputeCapability> cc = parseArch(arch);
  return cc ? findGpuArch(cc->major, cc->minor) : nullptr;
}

const std::vector<GpuDevice> &gpuDevices() {
  static const std::vector<GpuDevice> table = buildDeviceTable();
  return table;
}

const GpuDevice *findGpuDevice(std::string_view name) {
  for (const GpuDevice &d : gpuDevices())
    if (normalizedName(d.name) == normalizedName(name))
      return &d;
  return nullptr;
}

const GpuDevice *defaultGpuDevice(int major, int minor) {
  for (const GpuDevice &d : gpuDevices()) // the table lists each capability's default first
    if (d.major == major && d.minor == minor)
      return &d;
  return nullptr;
}

const GpuDevice *defaultRooflineDevice(int major, int minor) {
  for (const GpuDevice &d : gpuDevices())
    if (d.major == major && d.minor == minor && d.roofline)
      return &d;
  return nullptr;
}

RooflineResult rooflineTime(const RooflinePeaks &p, const RooflineInput &in) {
  RooflineResult r;
  for (size_t i = 0; i < in.flops.size(); ++i)
    if (in.flops[i] > 0)
      r.computeSeconds += p.peak[i] > 0 ? in.flops[i] / p.peak[i] : 0;
  for (size_t i = 0; i < in.tensorFlops.size(); ++i)
    if (in.tensorFlops[i] > 0) // no tensor unit for the type: the non-tensor rate of fp64
      r.computeSeconds += in.tensorFlops[i] / (p.tensorPeak[i] > 0 ? p.tensorPeak[i] : p.peak[3]);
  r.memorySeconds = in.dramBytes / p.bandwidth();
  return r;
}

} // namespace cudaperf::support
