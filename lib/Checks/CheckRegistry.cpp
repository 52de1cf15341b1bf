//===- CheckRegistry.cpp - Every check cudaperf-analyze runs ---------------===//
//
// To add a check: lib/Checks/<Name>Check.cpp with a Check subclass and a factory
// `std::unique_ptr<Check> create<Name>Check()`, declared and listed below, plus
// docs/checks/<check-name>.md.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"

namespace cudaperf {

// Factories (one per file in lib/Checks).
std::unique_ptr<Check> createAnalysisFaultCheck();
std::unique_ptr<Check> createContendedAtomicCheck();
std::unique_ptr<Check> createDivergentBarrierCheck();
std::unique_ptr<Check> createInvalidLaunchConfigCheck();
std::unique_ptr<Check> createLowIntensityCheck();
std::unique_ptr<Check> createLowOccupancyCheck();
std::unique_ptr<Check> createMissingBarrierCheck();
std::unique_ptr<Check> createRedundantBarrierCheck();
std::unique_ptr<Check> createSharedBankConflictCheck();
std::unique_ptr<Check> createSharedWarHazardCheck();
std::unique_ptr<Check> createRegisterSpillsCheck();
std::unique_ptr<Check> createTailEffectCheck();
std::unique_ptr<Check> createUncoalescedAccessCheck();
std::unique_ptr<Check> createUnknownAccessCheck();

const std::vector<std::unique_ptr<Check>> &allChecks() {
  static const std::vector<std::unique_ptr<Check>> Checks = [] {
    std::vector<std::unique_ptr<Check>> C;
    C.push_back(createAnalysisFaultCheck());
    C.push_back(createContendedAtomicCheck());
    C.push_back(createDivergentBarrierCheck());
    C.push_back(createInvalidLaunchConfigCheck());
    C.push_back(createLowIntensityCheck());
    C.push_back(createLowOccupancyCheck());
    C.push_back(createMissingBarrierCheck());
    C.push_back(createRedundantBarrierCheck());
    C.push_back(createSharedBankConflictCheck());
    C.push_back(createSharedWarHazardCheck());
    C.push_back(createRegisterSpillsCheck());
    C.push_back(createTailEffectCheck());
    C.push_back(createUncoalescedAccessCheck());
    C.push_back(createUnknownAccessCheck());
    return C;
  }();
  return Checks;
}

} // namespace cudaperf
