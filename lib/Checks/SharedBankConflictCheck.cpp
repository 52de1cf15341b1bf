//===- SharedBankConflictCheck.cpp - cuda-shared-bank-conflict ------------===//
//
// Fires where a shared-memory access needs more wavefronts per warp request than its bytes need. The remedy
// follows the stride between consecutive threadIdx.x (in 4-byte words): an even word stride puts
// gcd(stride, 32) lanes in one bank; padding each row of the array by one element makes the stride
// odd; an XOR swizzle of the column index spreads the lanes without extra memory.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <numeric>

namespace cudaperf {

namespace {
class SharedBankConflictCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-shared-bank-conflict",
        "shared-memory access with bank conflicts (more than one wavefront per warp request)",
        "Shared memory has 32 banks of 4 bytes; lanes of a warp that access different words in "
        "one bank are served one after another, so an n-way conflict makes the access n times "
        "slower.",
        Severity::Warning};
    return I;
  }

  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    for (const MemoryAccess &A : K.Accesses) {
      if (A.Space != "shared" || A.Pattern != "bank-conflict" || !A.BankConflictWays)
        continue;
      double Ideal = A.IdealWavefronts.value_or(1.0);
      std::string Msg = llvm::formatv("shared {0} of {1}-byte elements needs {2:f2} wavefronts per "
                                      "warp request where {3} would do ({4:f2}-way bank conflict)",
                                      A.Op, A.Bytes, *A.BankConflictWays,
                                      llvm::formatv("{0}", llvm::format("%g", Ideal)).str(),
                                      *A.BankConflictWays / Ideal);
      std::optional<int64_t> Stride = A.StrideBytes;
      if (Stride && *Stride != 0) {
        int64_t Words = *Stride / 4;
        Msg += llvm::formatv(": consecutive threadIdx.x are {0} bytes apart", *Stride);
        if (*Stride % 4 == 0 && Words % 2 == 0)
          Msg += llvm::formatv(", so {0} lanes share a bank", std::gcd<int64_t>(std::abs(Words), 32));
        Msg += "; " + remedy(A);
      } else {
        Msg += "; make consecutive threadIdx.x touch consecutive 4-byte words, or pad/swizzle the "
               "index so a warp's words fall into different banks";
      }
      Out.push_back(make(K, A.Loc, Msg));
    }
  }

private:
  static std::string remedy(const MemoryAccess &A) {
    if (A.Array && A.ArrayDims && A.ArrayDims->size() >= 2) {
      const std::vector<int64_t> &Dims = *A.ArrayDims;
      std::string Decl = *A.Array;
      for (size_t I = 0; I < Dims.size(); ++I)
        Decl += "[" + std::to_string(I + 1 == Dims.size() ? Dims[I] + 1 : Dims[I]) + "]";
      return "pad each row by one element (declare " + Decl +
             ") or swizzle the column index (col ^ row)";
    }
    return "pad the stride by one element (make it an odd number of 4-byte words) or swizzle the "
           "index (index ^ (index / 32))";
  }
};
} // namespace

std::unique_ptr<Check> createSharedBankConflictCheck() {
  return std::make_unique<SharedBankConflictCheck>();
}

} // namespace cudaperf
