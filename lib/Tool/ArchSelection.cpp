//===- ArchSelection.cpp - Architecture of a compile command, clang's device arch ---------===//
#include "cudaperf/Tool/ArchSelection.h"
#include "cudaperf/Support/Arch.h"
#include "cudaperf/Support/GpuTable.h"
#include "clang/Basic/Cuda.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>

namespace cudaperf {

namespace {

using llvm::StringRef;

/// "sm_80", "compute_80", "sm_90a" -> the canonical "sm_80"; anything else (native, all, lto_80,
/// garbage) -> "".
std::string canonical(StringRef V, bool *Virtual = nullptr) {
  V = V.trim().trim("[]");
  if (Virtual)
    *Virtual = V.starts_with("compute_");
  if (!V.starts_with("sm_") && !V.starts_with("compute_"))
    return "";
  std::optional<support::ComputeCapability> CC = support::parseArch(V);
  if (CC && CC->suffix == "f") // family-specific (sm_100f): the family's base architecture
    CC->suffix.clear();
  return CC ? CC->smName() : "";
}

/// Values of -gencode/--generate-code: "arch=compute_80,code=[sm_80,compute_80]" or
/// "arch=compute_80,code=sm_80".
void addGencode(StringRef Spec, std::vector<std::string> &Real, std::vector<std::string> &Virt) {
  // Split on commas outside brackets.
  llvm::SmallVector<std::string, 4> Parts;
  std::string Cur;
  int Depth = 0;
  for (char C : Spec) {
    if (C == '[') ++Depth;
    if (C == ']') --Depth;
    if (C == ',' && Depth <= 0) {
      Parts.push_back(Cur);
      Cur.clear();
    } else {
      Cur += C;
    }
  }
  Parts.push_back(Cur);
  for (StringRef P : Parts) {
    auto [Key, Value] = P.split('=');
    Value = Value.trim().trim("[]");
    llvm::SmallVector<StringRef, 4> Values;
    Value.split(Values, ',', -1, false);
    for (StringRef V : Values) {
      bool IsVirtual = false;
      std::string Name = canonical(V, &IsVirtual);
      if (Name.empty())
        continue;
      (Key.trim() == "code" && !IsVirtual ? Real : Virt).push_back(Name);
    }
  }
}

void addList(StringRef Value, std::vector<std::string> &Real, std::vector<std::string> &Virt) {
  llvm::SmallVector<StringRef, 4> Values;
  Value.split(Values, ',', -1, false);
  for (StringRef V : Values) {
    bool IsVirtual = false;
    std::string Name = canonical(V, &IsVirtual);
    if (!Name.empty())
      (IsVirtual ? Virt : Real).push_back(Name);
  }
}

} // namespace

std::vector<std::string> archsOfCompileCommand(const std::vector<std::string> &Args) {
  std::vector<std::string> Real, Virt;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef A = Args[I];
    auto valueOf = [&](StringRef Opt, StringRef &Value) {
      if (A == Opt && I + 1 < Args.size()) {
        Value = Args[++I];
        return true;
      }
      if (A.starts_with(Opt) && A.size() > Opt.size() && A[Opt.size()] == '=') {
        Value = A.drop_front(Opt.size() + 1);
        return true;
      }
      return false;
    };
    StringRef Value;
    if (valueOf("-gencode", Value) || valueOf("--generate-code", Value)) {
      addGencode(Value, Real, Virt);
      continue;
    }
    bool Matched = false;
    for (StringRef Opt : {"--cuda-gpu-arch", "--offload-arch", "-arch", "--gpu-architecture", "-code",
                          "--gpu-code"}) {
      // clang's options take only the "=" form; nvcc's take both.
      if (Opt.starts_with("--cuda") || Opt.starts_with("--offload")) {
        if (A.starts_with(Opt) && A.size() > Opt.size() && A[Opt.size()] == '=') {
          addList(A.drop_front(Opt.size() + 1), Real, Virt);
          Matched = true;
        }
      } else if (valueOf(Opt, Value)) {
        addList(Value, Real, Virt);
        Matched = true;
      }
      if (Matched)
        break;
    }
  }
  std::vector<std::string> &Chosen = Real.empty() ? Virt : Real;
  std::vector<std::string> Out;
  for (const std::string &S : Chosen)
    if (std::find(Out.begin(), Out.end(), S) == Out.end())
      Out.push_back(S);
  return Out;
}

std::string newestArch(const std::vector<std::string> &Archs) {
  std::string Best;
  int BestNumber = -1;
  for (const std::string &A : Archs)
    if (auto CC = support::parseArch(A); CC && CC->number() > BestNumber) {
      BestNumber = CC->number();
      Best = A;
    }
  return Best;
}

std::string clangDeviceArch(const std::string &Arch) {
  if (clang::StringToOffloadArch(Arch) != clang::OffloadArch::UNKNOWN)
    return Arch;
  std::optional<support::ComputeCapability> Want = support::parseArch(Arch);
  // The newest sm_XX clang knows at or below the request (clang 22 knows sm_100/103/120 itself).
  std::string Best = "sm_90";
  int BestNumber = 0;
  for (int N = 30; N <= 199; ++N) {
    std::string Name = "sm_" + std::to_string(N);
    if (clang::StringToOffloadArch(Name) == clang::OffloadArch::UNKNOWN)
      continue;
    if (Want && N > Want->number())
      break;
    if (N > BestNumber) {
      BestNumber = N;
      Best = Name;
    }
  }
  return Best;
}

std::string knownArchList() {
  std::string Out;
  for (const support::GpuArch &A : support::gpuArchs())
    Out += (Out.empty() ? "" : ", ") + A.smName();
  return Out;
}

std::string knownGpuList() {
  std::string Out;
  for (const support::GpuDevice &D : support::gpuDevices())
    Out += (Out.empty() ? "" : ", ") + std::string(D.name) + " (sm_" +
           std::to_string(D.major * 10 + D.minor) + ")";
  return Out;
}

} // namespace cudaperf
