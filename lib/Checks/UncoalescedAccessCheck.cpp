//===- UncoalescedAccessCheck.cpp - cuda-uncoalesced-access ---------------===//
//
// A global access whose predicted sectors per warp request exceed the ideal (the distinct bytes the
// warp needs, in 32-byte sectors). Facts come from the coalescing analysis (lib/Analysis/Coalescing.cpp);
// this file only words the finding and picks a remedy that fits the pattern.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

namespace cudaperf {

namespace {

// Below this excess the difference is rounding in the average over sampled warps.
constexpr double Tolerance = 0.01;

std::string strideText(int64_t StrideBytes, unsigned Bytes) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  if (Bytes && StrideBytes % Bytes == 0)
    OS << StrideBytes / int64_t(Bytes) << " element" << (std::llabs(StrideBytes / int64_t(Bytes)) == 1 ? "" : "s")
       << " (" << StrideBytes << " bytes)";
  else
    OS << StrideBytes << " bytes";
  return S;
}

class UncoalescedAccessCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-uncoalesced-access",
        "A warp's global memory access touches more 32-byte sectors than its data needs",
        "Global memory moves in 32-byte sectors. When the 32 lanes of a warp read or write "
        "addresses that are strided, misaligned or scattered, one request touches more sectors "
        "than the bytes it uses, and the kernel spends DRAM/L2 bandwidth on bytes it throws away.",
        Severity::Warning};
    return I;
  }

  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    for (const MemoryAccess &A : K.Accesses) {
      if (A.Space != "global" || !A.SectorsPerRequest)
        continue;
      double Ideal = A.IdealSectorsPerRequest.value_or(0);
      double Sectors = *A.SectorsPerRequest;
      if (Ideal <= 0 || Sectors <= Ideal + Tolerance)
        continue;
      if (A.Pattern == "broadcast")
        continue;
      Diagnostic D = make(K, A.Loc, message(A, Sectors, Ideal));
      // Estimated saving: the excess sectors of the launch's warp requests, at the device's DRAM
      // bandwidth (an upper bound: some of them hit in L2).
      std::optional<double> LaneExecutions = A.LaneExecutions.value_or(std::nullopt);
      std::optional<double> Bandwidth;
      if (K.Work && K.Work->Roofline)
        Bandwidth = K.Work->Roofline->DramBytesPerSecond;
      if (LaneExecutions && Bandwidth && *Bandwidth > 0 && A.Pattern != "parameter-dependent")
        D.EstimatedSavingUs = (Sectors - Ideal) * (*LaneExecutions / 32.0) * 32.0 / *Bandwidth * 1e6;
      Out.push_back(std::move(D));
    }
  }

private:
  std::string message(const MemoryAccess &A, double Sectors, double Ideal) const {
    std::string Msg;
    llvm::raw_string_ostream OS(Msg);
    bool Param = A.Pattern == "parameter-dependent";
    OS << "global " << A.Op << " of " << A.Bytes << "-byte elements " << (Param ? "may touch up to " : "touches ")
       << llvm::format("%.4g", Sectors) << " sectors per warp request where " << llvm::format("%.4g", Ideal)
       << " would do (" << llvm::format("%.1f", Sectors / Ideal) << "x)";

    std::optional<int64_t> StrideX = A.StrideBytes;
    std::optional<int64_t> StrideY;
    if (A.Coefficients && *A.Coefficients)
      StrideY = (*A.Coefficients)->Y;
    bool Struct = A.StructStride;

    if (Param) {
      std::string Names;
      for (const std::string &N : A.UnknownParams)
        Names += (Names.empty() ? "'" : ", '") + N + "'";
      OS << ": the distance between consecutive threads depends on " << Names
         << ", whose value is not known; give it with --param KERNEL:NAME=VALUE, and if it is a row "
            "length, swap the index order so that threadIdx.x walks the contiguous dimension";
      return Msg;
    }
    if (A.Pattern == "misaligned") {
      int64_t Off = A.MisalignmentBytes.value_or(0);
      OS << ": the warp's first address is " << Off
         << " bytes past a 32-byte sector boundary; align the start (offset the index to a multiple of "
         << (A.Bytes ? 32 / std::max(1u, A.Bytes) : 1)
         << " elements, pad rows to a multiple of 32 bytes), or for stencil neighbours load the tile "
            "and its halo into shared memory once";
      return Msg;
    }
    if (StrideX && *StrideX == 0 && StrideY && *StrideY != 0) {
      OS << ": threadIdx.x does not move the address, consecutive lanes differ in threadIdx.y ("
         << strideText(*StrideY, A.Bytes)
         << " apart); make threadIdx.x index the contiguous (last) dimension";
      return Msg;
    }
    if (StrideX) {
      OS << ": consecutive threads are " << strideText(*StrideX, A.Bytes) << " apart";
      if (Struct) {
        OS << " (array of structures); store each field in its own array (structure of arrays), or "
              "load the whole structure with one aligned vector access (__align__(16), float4)";
      } else if (std::llabs(*StrideX) <= 16 && A.Bytes && *StrideX % A.Bytes == 0) {
        OS << "; vectorise (let each thread load its " << std::llabs(*StrideX) / A.Bytes
           << " adjacent elements with one float2/float4-style access) or re-index so that consecutive "
              "threads use consecutive elements";
      } else {
        OS << "; swap the index order so that threadIdx.x walks the contiguous dimension, or, when the "
              "other side of the copy needs this order (a transpose), stage a tile through shared "
              "memory (e.g. float tile[32][33]) and access global memory along rows on both sides";
      }
      return Msg;
    }
    OS << ": lane addresses are not an affine function of the thread index; remap the index so that "
          "consecutive threads use consecutive elements";
    return Msg;
  }
};

} // namespace

std::unique_ptr<Check> createUncoalescedAccessCheck() {
  return std::make_unique<UncoalescedAccessCheck>();
}

} // namespace cudaperf
