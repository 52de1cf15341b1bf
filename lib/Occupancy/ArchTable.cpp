//===- ArchTable.cpp - Per-compute-capability limits for the occupancy calculator ---===//
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
//===----------------------------------------------------------------------===//
#include "cudaperf/Occupancy/Occupancy.h"
#include <cctype>
#include <string>

namespace cudaperf::occupancy {

namespace {

constexpr int KiB = 1024;

ArchSpec row(int Major, int Minor, const char *Family, int ThreadsPerSM, int BlocksPerSM,
             int SmemPerSMKiB, int OptinPerBlockKiB, int ReservedPerBlock, int SmemUnit,
             std::vector<int> CarveoutKiB, int BarriersPerSlot, const char *Source) {
  ArchSpec A;
  A.Major = Major;
  A.Minor = Minor;
  A.Family = Family;
  A.MaxThreadsPerSM = ThreadsPerSM;
  A.MaxBlocksPerSM = BlocksPerSM;
  A.RegistersPerSM = 64 * KiB;    // [PG]: 64K 32-bit registers per SM for every 7.0+ row
  A.RegistersPerBlock = 64 * KiB; // [PG]
  A.MaxRegistersPerThread = 255;  // [PG]
  A.RegisterAllocUnit = 256;      // [OCC] cudaOccRegAllocationGranularity
  A.SubPartitions = 4;            // [OCC] cudaOccSubPartitionsPerMultiprocessor
  A.SharedMemPerSM = SmemPerSMKiB * KiB;
  A.SharedMemPerBlock = 48 * KiB; // [PG] without opt-in
  A.SharedMemPerBlockOptin = OptinPerBlockKiB * KiB;
  A.ReservedSharedMemPerBlock = ReservedPerBlock;
  A.SharedMemAllocUnit = SmemUnit;
  A.CarveoutStepsKiB = std::move(CarveoutKiB);
  A.BarriersPerBlockSlot = BarriersPerSlot;
  A.Source = Source;
  return A;
}

std::vector<ArchSpec> buildTable() {
  const std::vector<int> Volta = {0, 8, 16, 32, 64, 96};
  const std::vector<int> Turing = {32, 64};
  const std::vector<int> GA100 = {0, 8, 16, 32, 64, 100, 132, 164};
  const std::vector<int> GA10x = {0, 8, 16, 32, 64, 100};
  const std::vector<int> Hopper = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
  return {
      row(7, 0, "Volta", 2048, 32, 96, 96, 0, 256, Volta, 0,
          "[PG] 7.0: 64 warps, 32 blocks, 96 KB shared/SM and per block (opt-in); carveout "
          "0/8/16/32/64/96 KB; [OCC] 256 B shared unit, no reservation"),
      row(7, 5, "Turing", 1024, 16, 64, 64, 0, 256, Turing, 0,
          "[PG] 7.5: 32 warps, 16 blocks, 64 KB shared/SM and per block (opt-in); carveout 32/64 KB; "
          "[OCC] 256 B shared unit"),
      row(8, 0, "Ampere GA100", 2048, 32, 164, 163, 1024, 128, GA100, 0,
          "[PG] 8.0: 64 warps, 32 blocks, 164 KB shared/SM, 163 KB opt-in per block, 1 KB reserved "
          "per block; carveout 0/8/16/32/64/100/132/164 KB; [OCC] 128 B unit"),
      row(8, 6, "Ampere GA10x", 1536, 16, 100, 99, 1024, 128, GA10x, 0,
          "[PG] 8.6: 48 warps, 16 blocks, 100 KB shared/SM, 99 KB opt-in, 1 KB reserved; carveout "
          "0/8/16/32/64/100 KB; [OCC] 128 B unit"),
      row(8, 7, "Ampere GA10B (Orin)", 1536, 16, 164, 163, 1024, 128, GA100, 0,
          "[PG] 8.7: 48 warps, 16 blocks, 164 KB shared/SM, 163 KB opt-in, 1 KB reserved; [OCC] "
          "carveout steps as 8.0, 128 B unit"),
      row(8, 9, "Ada", 1536, 24, 100, 99, 1024, 128, GA10x, 0,
          "[PG] 8.9: 48 warps, 24 blocks, 100 KB shared/SM, 99 KB opt-in, 1 KB reserved; carveout "
          "as 8.6; [OCC] 128 B unit"),
      row(9, 0, "Hopper", 2048, 32, 228, 227, 1024, 128, Hopper, 2,
          "[PG] 9.0: 64 warps, 32 blocks, 228 KB shared/SM, 227 KB opt-in, 1 KB reserved; carveout "
          "0/8/16/32/64/100/132/164/196/228 KB; [OCC] 128 B unit, barrier limit 2 per block slot; "
          "[H200] all per-SM numbers confirmed"),
      row(10, 0, "Blackwell B200", 2048, 32, 228, 227, 1024, 128, Hopper, 2,
          "[PG] 10.0: 64 warps, 32 blocks, 228 KB shared/SM, 227 KB opt-in, 1 KB reserved; [OCC] "
          "carveout steps as 9.0, 128 B unit, barrier limit 2 per block slot"),
      row(12, 0, "Blackwell GB20x", 1536, 24, 100, 99, 1024, 128, GA10x, 1,
          "[PG] 12.0: 48 warps, 100 KB shared/SM, 99 KB opt-in, 1 KB reserved; [OCC] 24 resident "
          "blocks, carveout 0..100 KB as 8.6, 128 B unit, barrier limit 1 per block slot"),
  };
}

bool equalsIgnoringSeparators(std::string_view A, std::string_view B) {
  auto Norm = [](std::string_view S) {
    std::string R;
    for (char C : S)
      if (std::isalnum(static_cast<unsigned char>(C)))
        R.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(C))));
    return R;
  };
  return Norm(A) == Norm(B);
}

} // namespace

std::string ArchSpec::smName() const {
  return "sm_" + std::to_string(Major * 10 + Minor);
}

const std::vector<ArchSpec> &allArchs() {
  static const std::vector<ArchSpec> Table = buildTable();
  return Table;
}

const ArchSpec *findArch(int Major, int Minor) {
  for (const ArchSpec &A : allArchs())
    if (A.Major == Major && A.Minor == Minor)
      return &A;
  return nullptr;
}

const ArchSpec *findArch(std::string_view Arch) {
  std::string_view S = Arch;
  for (std::string_view Prefix : {"sm_", "compute_", "sm", "compute"})
    if (S.substr(0, Prefix.size()) == Prefix) {
      S.remove_prefix(Prefix.size());
      break;
    }
  // "9.0"
  if (auto Dot = S.find('.'); Dot != std::string_view::npos) {
    std::string Maj(S.substr(0, Dot)), Min(S.substr(Dot + 1));
    if (Maj.empty() || Min.empty() || !std::isdigit(static_cast<unsigned char>(Maj[0])) ||
        !std::isdigit(static_cast<unsigned char>(Min[0])))
      return nullptr;
    return findArch(std::stoi(Maj), std::stoi(Min));
  }
  // "90", "90a", "100f": digits, then an optional feature suffix.
  size_t Digits = 0;
  while (Digits < S.size() && std::isdigit(static_cast<unsigned char>(S[Digits])))
    ++Digits;
  if (Digits < 2 || Digits > 3)
    return nullptr;
  std::string_view Rest = S.substr(Digits);
  if (!(Rest.empty() || Rest == "a" || Rest == "f"))
    return nullptr;
  int Number = std::stoi(std::string(S.substr(0, Digits)));
  return findArch(Number / 10, Number % 10);
}

// SM counts from NVIDIA's product pages and architecture whitepapers, as named in each row.
const std::vector<DeviceSpec> &allDevices() {
  static const std::vector<DeviceSpec> Devices = {
      {"H200", 9, 0, 132, "measured: cudaDeviceProp::multiProcessorCount on the project's H200"},
      {"H100-SXM", 9, 0, 132, "NVIDIA H100 Tensor Core GPU Architecture whitepaper: H100 SXM5 132 SMs"},
      {"H100-PCIe", 9, 0, 114, "NVIDIA H100 whitepaper: H100 PCIe 114 SMs"},
      {"GH200", 9, 0, 132, "NVIDIA Grace Hopper Superchip whitepaper: 132 SMs"},
      {"A100", 8, 0, 108, "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 108 SMs"},
      {"A30", 8, 0, 56, "NVIDIA A30 datasheet: 56 SMs (3,584 CUDA cores / 64)"},
      {"V100", 7, 0, 80, "NVIDIA Tesla V100 GPU Architecture whitepaper: 80 SMs"},
      {"T4", 7, 5, 40, "NVIDIA Turing GPU Architecture whitepaper: Tesla T4 40 SMs"},
      {"A10", 8, 6, 72, "NVIDIA A10 datasheet: 72 SMs (9,216 CUDA cores / 128)"},
      {"RTX-3090", 8, 6, 82, "NVIDIA Ampere GA102 GPU Architecture whitepaper: RTX 3090 82 SMs"},
      {"Jetson-AGX-Orin", 8, 7, 16, "NVIDIA Jetson AGX Orin series technical brief: 16 SMs (2,048 CUDA cores)"},
      {"L4", 8, 9, 58, "NVIDIA Ada GPU Architecture whitepaper: L4 58 SMs"},
      {"L40S", 8, 9, 142, "NVIDIA L40S datasheet: 142 SMs (18,176 CUDA cores / 128)"},
      {"RTX-4090", 8, 9, 128, "NVIDIA Ada GPU Architecture whitepaper: RTX 4090 128 SMs"},
      {"B200", 10, 0, 148, "NVIDIA Blackwell architecture technical brief: B200 148 SMs"},
      {"RTX-5090", 12, 0, 170, "NVIDIA RTX Blackwell GPU Architecture whitepaper: RTX 5090 170 SMs"},
  };
  return Devices;
}

const DeviceSpec *findDevice(std::string_view Name) {
  for (const DeviceSpec &D : allDevices())
    if (equalsIgnoringSeparators(D.Name, Name))
      return &D;
  return nullptr;
}

const DeviceSpec *defaultDevice(int Major, int Minor) {
  for (const DeviceSpec &D : allDevices()) // the table lists each capability's default first
    if (D.Major == Major && D.Minor == Minor)
      return &D;
  return nullptr;
}

} // namespace cudaperf::occupancy
