//===- RegisterSpillsCheck.cpp - cuda-register-spills ------------------------------------===//
//
// ptxas spilled registers to local memory (its -v report: "N bytes spill stores, M bytes spill
// loads"). Only reported from NVIDIA's compiler; the IR estimate cannot see spills.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"
#include "llvm/Support/raw_ostream.h"

namespace cudaperf {

namespace {

class RegisterSpillsCheck : public Check {
public:
  const CheckInfo &info() const override {
    static const CheckInfo I{
        "cuda-register-spills",
        "ptxas spills registers to local memory",
        "A spilled value is stored to and reloaded from per-thread local memory, which lives in "
        "device memory behind L1 and L2: each spill costs memory instructions and bandwidth "
        "inside the kernel's hottest code. Spills come from too many simultaneously live values "
        "or from a register cap (__launch_bounds__ minimum blocks, -maxrregcount) that is too "
        "tight.",
        Severity::Warning};
    return I;
  }

  void run(const KernelReport &K, std::vector<Diagnostic> &Out) const override {
    if (!K.Resources || !K.Resources->fromCompiler())
      return;
    const ResourceFacts &R = *K.Resources;
    int64_t Stores = R.SpillStoreBytes;
    int64_t Loads = R.SpillLoadBytes;
    if (Stores == 0 && Loads == 0)
      return;
    std::string Msg;
    llvm::raw_string_ostream OS(Msg);
    OS << "ptxas spills registers of '" << K.Name << "' to local memory on "
       << R.Arch << ": " << Stores << " bytes of spill stores and " << Loads
       << " bytes of spill loads per thread at " << R.Registers << " registers";
    if (K.LaunchBoundsMinBlocks)
      OS << "; __launch_bounds__(" << K.LaunchBoundsMaxThreads.value_or(0) << ", "
         << *K.LaunchBoundsMinBlocks
         << ") caps the registers: a smaller minimum of resident blocks lifts the cap";
    else
      OS << "; shorten the live ranges (fewer values kept across loops, smaller per-thread "
            "arrays) or lift a -maxrregcount cap";
    Out.push_back(make(K, K.Loc, Msg));
  }
};

} // namespace

std::unique_ptr<Check> createRegisterSpillsCheck() { return std::make_unique<RegisterSpillsCheck>(); }

} // namespace cudaperf
