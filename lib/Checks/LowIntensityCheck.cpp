//===- LowIntensityCheck.cpp - cuda-low-intensity ----------------------------------------===//
//
// A memory-bound kernel reads the same global data from several threads straight from global
// memory: an array's requested load bytes are at least MinReuse times its distinct bytes (the
// DRAM read estimate, at least MinDistinctBytes), no load of it is staged into shared memory, and the kernel does fewer FLOP
// per byte moved through L1/L2 than the device's FP32 ridge point (or the roofline says memory).
// Facts from the work analysis (K.Work, WorkFacts).
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace cudaperf {

namespace {

constexpr double MinReuse = 4.0;
// Arrays this small stay in L1 (or are uniform loads): staging them buys nothing.
constexpr double MinDistinctBytes = 4096;

std::string bytes(double B) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (B >= 1e9)
    OS << llvm::format("%.1f GB", B / 1e9);
  else if (B >= 1e6)
    OS << llvm::format("%.1f MB", B / 1e6);
  else if (B >= 1e3)
    OS << llvm::format("%.1f kB", B / 1e3);
  else
    OS << llvm::format("%.0f B", B);
  return S;
}

class LowIntensityCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-low-intensity",
        "Threads re-read the same global data without staging it, in a memory-bound kernel",
        "Every re-read of global data goes through L1/L2 again: the kernel is limited by that "
        "traffic, not by arithmetic. Load each reused tile once per block into __shared__ memory "
        "(or once per thread into registers) and reuse it from there; the reuse factor says how "
        "many times each distinct byte is requested.",
        Severity::Note};
    return I;
  }

  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    if (!K.Work)
      return;
    const WorkFacts &W = *K.Work;
    std::optional<double> L2Intensity = W.L2ArithmeticIntensity;
    const std::optional<RooflineFacts> &Roof = W.Roofline;
    std::optional<double> Ridge;
    if (Roof && Roof->Times)
      Ridge = Roof->Times->RidgeFp32FlopPerByte;
    bool MemoryBound = W.Bound.value_or("") == "memory";
    bool L2Bound = L2Intensity && Ridge && *L2Intensity < *Ridge;
    if (!MemoryBound && !L2Bound)
      return;
    for (const ArrayTrafficFacts &A : W.Arrays) {
      if (!A.Loads || A.Loads->StagedInShared || !A.RangeKnown)
        continue;
      std::optional<double> Reuse = A.Loads->ReuseFactor;
      std::optional<double> Requested = A.Loads->GlobalLoadBytes;
      std::optional<double> Distinct = A.DramReadBytesEstimate;
      const std::optional<std::string> &Name = A.Array;
      if (!Reuse || *Reuse < MinReuse || !Requested || !Distinct || *Distinct < MinDistinctBytes ||
          !Name)
        continue;
      std::string Msg;
      llvm::raw_string_ostream OS(Msg);
      OS << "'" << *Name << "' is requested " << llvm::format("%.0f", *Reuse)
         << " times per distinct byte (" << bytes(*Requested) << " of loads for "
         << bytes(*Distinct) << " of data) straight from global memory, and '" << K.Name << "' ";
      if (L2Bound)
        OS << "does " << llvm::format("%.2f", *L2Intensity)
           << " FLOP per byte moved through L1/L2, below the "
           << Roof->Device << " ridge point of "
           << llvm::format("%.1f", *Ridge) << " FLOP/byte";
      else
        OS << "is memory-bound on its DRAM roofline";
      OS << "; load each reused tile once into __shared__ memory (or registers) and reuse it";
      SourceLocation Loc;
      Loc.File = K.Loc.File;
      Loc.Line = static_cast<unsigned>(A.Loads->Line);
      Loc.Column = static_cast<unsigned>(A.Loads->Column);
      Out.push_back(make(K, Loc, Msg));
    }
  }
};

} // namespace

std::unique_ptr<Check> createLowIntensityCheck() { return std::make_unique<LowIntensityCheck>(); }

} // namespace cudaperf
