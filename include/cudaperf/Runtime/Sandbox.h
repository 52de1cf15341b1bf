// Confinement of the process that runs candidate code (the evaluator's runner, docs/security.md):
// Landlock (files written only in its scratch directory, read only where the policy says, TCP and
// signals to other processes refused), PR_SET_NO_NEW_PRIVS, a seccomp filter (no new processes, no
// signals, ptrace or memory access to other processes, no new sessions or process groups, no
// network sockets, no new executable mappings) and resource limits. Applied by the process to
// itself, irreversibly, before the candidate's shared object is loaded, so its static
// constructors are confined as well. Linux only; what the kernel lacks is reported, and the
// caller decides whether weaker confinement is acceptable.
#pragma once

#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::runtime {

struct SandboxPolicy {
  std::string scratchDir;                // read, write, create, remove: the only writable directory
  std::vector<std::string> readPaths;    // directories (and everything below) or files that may be read
                                         // and mapped; a missing path is skipped
  std::vector<std::string> writeFiles;   // files (devices: /dev/nvidia*, /dev/null) opened for writing
  std::vector<std::string> writeDirs;    // more directories with every right (as scratchDir)
  bool landlock = true;
  bool seccomp = true;
  bool forbidExecMappings = true;        // mprotect(PROT_EXEC), anonymous executable mmap and memfd fail (EPERM)
  uint64_t cpuSeconds = 0;               // RLIMIT_CPU (0: unchanged)
  uint64_t fileBytes = 0;                // RLIMIT_FSIZE (0: unchanged)
  uint64_t openFiles = 0;                // RLIMIT_NOFILE (0: unchanged)
};

// What the kernel offers, and after applySandbox what was applied.
struct SandboxStatus {
  int landlockAbi = 0;          // 0: no Landlock
  bool seccompAvailable = false;
  bool noNewPrivs = false;
  bool capabilitiesDropped = false;
  bool landlockFiles = false;   // the file rules are in force
  bool landlockNetwork = false; // TCP bind and connect refused (Landlock ABI >= 4)
  bool landlockSignals = false; // signals to processes outside the sandbox refused (ABI >= 6)
  bool seccompFilter = false;
  bool execMappingsForbidden = false;
  bool resourceLimits = false;
  std::vector<std::string> missing; // what the policy asked for and could not be applied, in words
  std::string error;                // a failure while applying (the process is then partly confined)

  // Every protection the policy asked for is in force.
  bool complete() const { return error.empty() && missing.empty(); }
  support::Json toJson() const;
};

// What this kernel supports (nothing is applied).
SandboxStatus probeSandbox();

// Confines the calling process (all its threads, for seccomp: the calling thread and threads it
// creates afterwards; call it while single-threaded or before other threads start work that must
// be confined). Irreversible.
SandboxStatus applySandbox(const SandboxPolicy &policy);

// Another Landlock layer on top of the first (layers only ever narrow what is allowed): for what a
// set-up step needed and the code after it must not have. False where no first layer is in force.
bool addFileRulesLayer(const SandboxPolicy &policy, SandboxStatus &status);

// The seccomp rule against new executable memory, on its own: a process that must first set up
// what maps code (a CUDA context) applies applySandbox without it, then this. False (and
// `status` says why) where it could not be applied.
bool forbidNewExecutableMappings(SandboxStatus &status);

// The seccomp rules, in words, for the documentation and the result document.
std::vector<std::string> sandboxRules();

} // namespace cudaperf::runtime
