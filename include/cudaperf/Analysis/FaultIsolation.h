//===- FaultIsolation.h - A crash in one analysis is not a crash of the tool -*- C++ -*-===//
//
// cudaperf-analyze runs each analysis of each kernel (and the parse of each file) through
// runIsolated: a fault inside (a signal such as SIGSEGV or SIGFPE, an abort from a failed
// assertion, a stack overflow, an LLVM fatal error) unwinds to the caller, which reports it for
// that kernel and goes on with the others. Built on llvm::CrashRecoveryContext; stack overflows are
// caught on an alternate signal stack. What the faulting code left half done is not rolled back
// (memory it allocated leaks); the caller discards its partial results.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAPERF_ANALYSIS_FAULTISOLATION_H
#define CUDAPERF_ANALYSIS_FAULTISOLATION_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace cudaperf {

struct Fault {
  int Signal = 0;          // the signal number; 0 for an LLVM fatal error
  std::string Description; // "segmentation fault (SIGSEGV)", "LLVM fatal error: ..."
};

/// Runs \p Fn; returns the fault that stopped it, or std::nullopt when it returned normally.
std::optional<Fault> runIsolated(llvm::function_ref<void()> Fn);

/// The fault kinds --inject-fault accepts (for tests of the isolation): segv, fpe, abort,
/// stack-overflow, fatal-error.
bool isInjectableFault(llvm::StringRef Kind);

/// Raises the fault \p Kind in the calling thread (does not return for a known kind).
void injectFault(llvm::StringRef Kind);

} // namespace cudaperf

#endif
