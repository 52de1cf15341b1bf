// Compute-capability names as users and tools write them: "sm_90", "sm_90a", "compute_80",
// "sm_100f", "90", "9.0". One parser for the analyzer's --arch, the work analysis, the occupancy
// table and the runtime.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cudaperf::support {

struct ComputeCapability {
  int major = 0, minor = 0;
  std::string suffix; // "", "a" (architecture-specific) or "f" (family-specific)

  int number() const { return major * 10 + minor; } // 90
  std::string smName() const;                       // "sm_90a"
};

// Accepts an optional "sm_"/"compute_" prefix (or "sm"/"compute"), then two or three digits with
// an optional "a"/"f" suffix, or "MAJOR.MINOR". Anything else is nullopt.
std::optional<ComputeCapability> parseArch(std::string_view text);

// The strict form the analyzer takes for --arch (clang's --cuda-gpu-arch): "sm_" + two or three
// digits (+ "a"), sm_30 to sm_199.
std::optional<ComputeCapability> parseSmTarget(std::string_view text);

} // namespace cudaperf::support
