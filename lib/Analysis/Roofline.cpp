//===- Roofline.cpp - Peak rates of GPUs and the roofline time bound ------===//
#include "cudaperf/Analysis/Roofline.h"
#include <cctype>

namespace cudaperf {

namespace {
constexpr double T = 1e12; // TFLOP/s and TB/s
} // namespace

// Tensor peaks are the dense rates: NVIDIA's datasheets print sparse rates (2x) with a footnote.
const std::vector<RooflineDevice> &allRooflineDevices() {
  static const std::vector<RooflineDevice> Devices = {
      {"H200", 9, 0, 4.8 * T, 4.3 * T,
       {133.8 * T, 133.8 * T, 67 * T, 34 * T},
       {989.5 * T, 989.5 * T, 494.7 * T, 67 * T, 1979 * T},
       "NVIDIA H200 Tensor Core GPU datasheet (SXM): HBM3e 4.8 TB/s, FP32 67, FP64 34, FP64 Tensor "
       "67, TF32/BF16/FP16/INT8 Tensor 989/1979/1979/3958 with sparsity; non-tensor FP16/BF16 "
       "133.8 (H100 whitepaper, same SMs and clocks)",
       "measured on the project's H200: device-to-device copy ~4.3 TB/s (bytes read + written), "
       "shared/guide/ENVIRONMENT.md"},
      {"H100-SXM", 9, 0, 3.35 * T, std::nullopt,
       {133.8 * T, 133.8 * T, 67 * T, 34 * T},
       {989.5 * T, 989.5 * T, 494.7 * T, 67 * T, 1979 * T},
       "NVIDIA H100 Tensor Core GPU datasheet (SXM): HBM3 3.35 TB/s, FP32 67, FP64 34, FP64 "
       "Tensor 67, TF32/BF16/FP16/INT8 Tensor 989/1979/1979/3958 with sparsity; H100 whitepaper: "
       "FP16/BF16 non-tensor 133.8",
       ""},
      {"A100", 8, 0, 2.039 * T, std::nullopt,
       {78 * T, 39 * T, 19.5 * T, 9.7 * T},
       {312 * T, 312 * T, 156 * T, 19.5 * T, 624 * T},
       "NVIDIA A100 Tensor Core GPU datasheet (80GB SXM): HBM2e 2,039 GB/s, FP32 19.5, FP64 9.7, "
       "FP64 Tensor 19.5, TF32 156, BF16/FP16 312, INT8 624 (dense); A100 whitepaper: FP16 "
       "non-tensor 78, BF16 non-tensor 39",
       ""},
      {"L40S", 8, 9, 0.864 * T, std::nullopt,
       {91.6 * T, 91.6 * T, 91.6 * T, 1.43 * T},
       {362 * T, 362 * T, 183 * T, 0, 733 * T},
       "NVIDIA L40S datasheet: GDDR6 864 GB/s, FP32 91.6, TF32 Tensor 183, BF16/FP16 Tensor "
       "362.05, INT8 733 (dense); Ada whitepaper: FP16 non-tensor at the FP32 rate, FP64 at 1/64 "
       "of FP32 (no FP64 tensor cores)",
       ""},
  };
  return Devices;
}

const RooflineDevice *rooflineDeviceForArch(int Major, int Minor) {
  for (const RooflineDevice &D : allRooflineDevices()) // each capability's default is listed first
    if (D.Major == Major && D.Minor == Minor)
      return &D;
  return nullptr;
}

const RooflineDevice *findRooflineDevice(std::string_view Name) {
  auto Norm = [](std::string_view S) {
    std::string Out;
    for (char C : S)
      if (std::isalnum(static_cast<unsigned char>(C)))
        Out += static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
    return Out;
  };
  for (const RooflineDevice &D : allRooflineDevices())
    if (Norm(D.Name) == Norm(Name))
      return &D;
  return nullptr;
}

RooflineResult rooflineTime(const RooflineDevice &D, const RooflineInput &In) {
  RooflineResult R;
  for (size_t P = 0; P < In.Flops.size(); ++P)
    if (In.Flops[P] > 0)
      R.ComputeSeconds += D.Peak[P] > 0 ? In.Flops[P] / D.Peak[P] : 0;
  for (size_t P = 0; P < In.TensorFlops.size(); ++P)
    if (In.TensorFlops[P] > 0) // no tensor unit for the type: the non-tensor rate of fp64
      R.ComputeSeconds += In.TensorFlops[P] / (D.TensorPeak[P] > 0 ? D.TensorPeak[P] : D.Peak[3]);
  R.MemorySeconds = In.DramBytes / D.bandwidth();
  return R;
}

} // namespace cudaperf
