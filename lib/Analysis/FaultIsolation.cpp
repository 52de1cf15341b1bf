//===- FaultIsolation.cpp - llvm::CrashRecoveryContext around analyses --------------------===//
//
// CrashRecoveryContext::Enable installs handlers for SIGSEGV, SIGFPE, SIGABRT, SIGILL, SIGBUS
// (and SIGTRAP); a signal inside RunSafely jumps back to it. Two gaps are closed here:
//  - a stack overflow faults with no stack left to run the handler on: the handlers are marked
//    SA_ONSTACK and every thread that runs isolated code gets an alternate signal stack;
//  - llvm::report_fatal_error exits the process: inside a recovery context, a fatal-error handler
//    turns it into a recovered fault instead.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/FaultIsolation.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <signal.h>

namespace cudaperf {

namespace {

constexpr size_t AltStackBytes = 256 * 1024;
const int CrashSignals[] = {SIGSEGV, SIGFPE, SIGABRT, SIGILL, SIGBUS, SIGTRAP};

thread_local std::string FatalReason;

void fatalErrorHandler(void *, const char *Reason, bool) {
  if (llvm::CrashRecoveryContext *C = llvm::CrashRecoveryContext::GetCurrent()) {
    FatalReason = Reason ? Reason : "";
    C->HandleExit(1); // does not return
  }
  // Outside isolated code: LLVM's own behaviour (it exits after this handler returns).
  llvm::errs() << "LLVM ERROR: " << (Reason ? Reason : "") << "\n";
}

/// The alternate signal stack of a thread that runs isolated code, removed when the thread ends
/// (the register-compile prefetch runs one thread per file).
struct AltStack {
  char *Memory = nullptr;
  ~AltStack() {
    if (!Memory)
      return;
    stack_t Off{};
    Off.ss_flags = SS_DISABLE;
    sigaltstack(&Off, nullptr);
    delete[] Memory;
  }
};

void ensureAltStack() {
  thread_local bool Done = false;
  thread_local AltStack Mine;
  if (Done)
    return;
  Done = true;
  stack_t Old;
  if (sigaltstack(nullptr, &Old) == 0 && !(Old.ss_flags & SS_DISABLE) && Old.ss_size >= AltStackBytes)
    return;
  Mine.Memory = new char[AltStackBytes];
  stack_t New;
  New.ss_sp = Mine.Memory;
  New.ss_size = AltStackBytes;
  New.ss_flags = 0;
  sigaltstack(&New, nullptr);
}

void enableOnce() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::CrashRecoveryContext::Enable();
    for (int S : CrashSignals) {
      struct sigaction A;
      if (sigaction(S, nullptr, &A) == 0) {
        A.sa_flags |= SA_ONSTACK;
        sigaction(S, &A, nullptr);
      }
    }
    llvm::install_fatal_error_handler(fatalErrorHandler, nullptr);
  });
}

std::string describeSignal(int Signal) {
  switch (Signal) {
  case SIGSEGV: return "segmentation fault (SIGSEGV)";
  case SIGFPE: return "arithmetic exception (SIGFPE)";
  case SIGABRT: return "abort, e.g. a failed assertion (SIGABRT)";
  case SIGILL: return "illegal instruction (SIGILL)";
  case SIGBUS: return "bus error (SIGBUS)";
  case SIGTRAP: return "trap (SIGTRAP)";
  default: return "signal " + std::to_string(Signal);
  }
}

// Opaque to the optimiser, so that the injected faults really happen.
volatile int Zero = 0, Seven = 7;
int *volatile NullPointer = nullptr;

volatile int NoDepthLimit = 1 << 30; // far beyond any stack

[[gnu::noinline]] int recurseForever(int Depth) {
  volatile char Frame[512];
  Frame[0] = static_cast<char>(Depth);
  return Depth < NoDepthLimit ? recurseForever(Depth + 1) + Frame[0] : 0;
}

} // namespace

std::optional<Fault> runIsolated(llvm::function_ref<void()> Fn) {
  enableOnce();
  ensureAltStack();
  FatalReason.clear();
  llvm::CrashRecoveryContext CRC;
  if (CRC.RunSafely(Fn))
    return std::nullopt;
  Fault F;
  // RetCode is 128 + the signal for a signal, the HandleExit code (1) for a fatal error.
  if (CRC.RetCode > 128) {
    F.Signal = CRC.RetCode - 128;
    F.Description = describeSignal(F.Signal);
  } else {
    F.Description = "LLVM fatal error: " + (FatalReason.empty() ? std::string("?") : FatalReason);
  }
  return F;
}

bool isInjectableFault(llvm::StringRef Kind) {
  return Kind == "segv" || Kind == "fpe" || Kind == "abort" || Kind == "stack-overflow" ||
         Kind == "fatal-error";
}

void injectFault(llvm::StringRef Kind) {
  if (Kind == "segv")
    *NullPointer = 1;
  else if (Kind == "fpe")
    Zero = Seven / Zero; // an integer division by zero traps on x86
  else if (Kind == "abort")
    std::abort();
  else if (Kind == "stack-overflow")
    Zero = recurseForever(0);
  else if (Kind == "fatal-error")
    llvm::report_fatal_error("fault injected by --inject-fault", /*gen_crash_diag=*/false);
}

} // namespace cudaperf
