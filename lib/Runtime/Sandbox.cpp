#include "cudaperf/Runtime/Sandbox.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace cudaperf::runtime {

namespace {

// Landlock's interface, declared here because Debian 12's kernel headers (6.1) predate the
// network (ABI 4) and scope (ABI 6) fields; the layout is the kernel's UAPI.
struct LandlockRulesetAttr {
  uint64_t handledAccessFs;
  uint64_t handledAccessNet;
  uint64_t scoped;
};
struct __attribute__((packed)) LandlockPathBeneathAttr {
  uint64_t allowedAccess;
  int32_t parentFd;
};
constexpr int kLandlockRulePathBeneath = 1;
constexpr uint32_t kLandlockCreateRulesetVersion = 1u << 0;

constexpr uint64_t kFsExecute = 1ull << 0, kFsWriteFile = 1ull << 1, kFsReadFile = 1ull << 2,
                   kFsReadDir = 1ull << 3, kFsRemoveDir = 1ull << 4, kFsRemoveFile = 1ull << 5,
                   kFsMakeChar = 1ull << 6, kFsMakeDir = 1ull << 7, kFsMakeReg = 1ull << 8,
                   kFsMakeSock = 1ull << 9, kFsMakeFifo = 1ull << 10, kFsMakeBlock = 1ull << 11,
                   kFsMakeSym = 1ull << 12, kFsRefer = 1ull << 13, kFsTruncate = 1ull << 14;
constexpr uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;
constexpr uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

int landlockAbi() {
  long abi = syscall(__NR_landlock_create_ruleset, nullptr, 0, kLandlockCreateRulesetVersion);
  return abi < 0 ? 0 : int(abi);
}

// The file rights this ABI knows (every one is handled: what no rule grants is refused).
uint64_t handledFileRights(int abi) {
  uint64_t rights = kFsExecute | kFsWriteFile | kFsReadFile | kFsReadDir | kFsRemoveDir | kFsRemoveFile |
                    kFsMakeChar | kFsMakeDir | kFsMakeReg | kFsMakeSock | kFsMakeFifo | kFsMakeBlock | kFsMakeSym;
  if (abi >= 2)
    rights |= kFsRefer;
  if (abi >= 3)
    rights |= kFsTruncate;
  return rights;
}

bool isDirectory(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

// Rights on a path: a file can only carry the rights that apply to files.
bool addPathRule(int ruleset, const std::string &path, uint64_t rights, uint64_t handled, std::string &error) {
  int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0)
    return true; // absent: nothing to allow
  if (!isDirectory(fd))
    rights &= kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate;
  LandlockPathBeneathAttr rule{rights & handled, fd};
  long r = syscall(__NR_landlock_add_rule, ruleset, kLandlockRulePathBeneath, &rule, 0);
  int err = errno;
  close(fd);
  if (r != 0) {
    error = "landlock_add_rule(" + path + "): " + strerror(err);
    return false;
  }
  return true;
}

bool applyLandlock(const SandboxPolicy &policy, int abi, SandboxStatus &status) {
  LandlockRulesetAttr attr{};
  attr.handledAccessFs = handledFileRights(abi);
  size_t size = offsetof(LandlockRulesetAttr, handledAccessNet);
  if (abi >= 4) {
    attr.handledAccessNet = kNetBindTcp | kNetConnectTcp; // no rule grants them: no TCP at all
    size = offsetof(LandlockRulesetAttr, scoped);
  }
  if (abi >= 6) {
    attr.scoped = kScopeSignal | kScopeAbstractUnixSocket;
    size = sizeof attr;
  }
  int ruleset = int(syscall(__NR_landlock_create_ruleset, &attr, size, 0));
  if (ruleset < 0) {
    status.error = std::string("landlock_create_ruleset: ") + strerror(errno);
    return false;
  }
  uint64_t handled = attr.handledAccessFs;
  uint64_t read = kFsReadFile | kFsReadDir | kFsExecute;
  bool ok = true;
  for (const std::string &p : policy.readPaths)
    ok = ok && addPathRule(ruleset, p, read, handled, status.error);
  for (const std::string &p : policy.writeFiles)
    ok = ok && addPathRule(ruleset, p, kFsReadFile | kFsWriteFile | kFsTruncate, handled, status.error);
  if (!policy.scratchDir.empty())
    ok = ok && addPathRule(ruleset, policy.scratchDir, handled, handled, status.error);
  for (const std::string &p : policy.writeDirs)
    ok = ok && addPathRule(ruleset, p, handled, handled, status.error);
  if (ok && syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) {
    status.error = std::string("landlock_restrict_self: ") + strerror(errno);
    ok = false;
  }
  close(ruleset);
  if (!ok)
    return false;
  status.landlockFiles = true;
  status.landlockNetwork = abi >= 4;
  status.landlockSignals = abi >= 6;
  return true;
}

// --- seccomp -------------------------------------------------------------------------------

#if defined(__x86_64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#else
constexpr uint32_t kAuditArch = 0;
#endif

constexpr uint32_t kArgLow(int n) { return uint32_t(offsetof(seccomp_data, args) + 8 * n); }
constexpr uint32_t kArgHigh(int n) { return kArgLow(n) + 4; }

// A small assembler for the filter: rules are appended as self-contained blocks that either
// return or fall through to the next block.
class Filter {
public:
  void loadNr() { stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)); }
  // if (nr == number) return action;
  void onSyscall(long number, uint32_t action) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(number), 0, 1);
    ret(action);
  }
  // if (nr == number && arg[n] != (self: 64-bit)) return action; arg compared as a 64-bit value
  void onSyscallArgNotEqual(long number, int n, uint64_t value, uint32_t action) {
    // nr == number ? check : skip the 6 instructions that follow
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(number), 0, 6);
    stmt(BPF_LD | BPF_W | BPF_ABS, kArgHigh(n));
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(value >> 32), 0, 2);
    stmt(BPF_LD | BPF_W | BPF_ABS, kArgLow(n));
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(value), 1, 0);
    ret(action);
    loadNr(); // equal: allowed by this rule; the accumulator holds nr again for the next block
  }
  // if (nr == number && (arg[n] & bits) == 0) return action (low 32 bits)
  void onSyscallArgLacks(long number, int n, uint32_t bits, uint32_t action) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(number), 0, 4);
    stmt(BPF_LD | BPF_W | BPF_ABS, kArgLow(n));
    jump(BPF_JMP | BPF_JSET | BPF_K, bits, 1, 0);
    ret(action);
    loadNr();
  }
  // if (nr == number && (arg[n] & bits) != 0) return action (low 32 bits)
  void onSyscallArgHas(long number, int n, uint32_t bits, uint32_t action) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(number), 0, 4);
    stmt(BPF_LD | BPF_W | BPF_ABS, kArgLow(n));
    jump(BPF_JMP | BPF_JSET | BPF_K, bits, 0, 1);
    ret(action);
    loadNr();
  }
  // if (nr == number && (arg[a] & bitsA) && (arg[b] & bitsB)) return action (low 32 bits)
  void onSyscallArgsHave(long number, int a, uint32_t bitsA, int b, uint32_t bitsB, uint32_t action) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(number), 0, 6);
    stmt(BPF_LD | BPF_W | BPF_ABS, kArgLow(a));
    jump(BPF_JMP | BPF_JSET | BPF_K, bitsA, 0, 3);
    stmt(BPF_LD | BPF_W | BPF_ABS, kArgLow(b));
    jump(BPF_JMP | BPF_JSET | BPF_K, bitsB, 0, 1);
    ret(action);
    loadNr();
  }
  // if (nr == number && arg[n] (low 32 bits) == value) return action
  void onSyscallArgEquals(long number, int n, uint32_t value, uint32_t action) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(number), 0, 4);
    stmt(BPF_LD | BPF_W | BPF_ABS, kArgLow(n));
    jump(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1);
    ret(action);
    loadNr();
  }
  void checkArch() {
    stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
    jump(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0);
    ret(SECCOMP_RET_KILL_PROCESS);
    loadNr();
#if defined(__x86_64__)
    // The x32 ABI's numbers are another table: refuse them all.
    jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
    ret(SECCOMP_RET_KILL_PROCESS);
#endif
  }
  void allow() { ret(SECCOMP_RET_ALLOW); }
  bool install(std::string &error) const {
    sock_fprog prog{uint16_t(code_.size()), const_cast<sock_filter *>(code_.data())};
    // TSYNC: every thread of the process, the CUDA driver's included.
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
      error = std::string("seccomp: ") + strerror(errno);
      return false;
    }
    return true;
  }

private:
  std::vector<sock_filter> code_;
  void stmt(uint16_t code, uint32_t k) { code_.push_back(BPF_STMT(code, k)); }
  void jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) { code_.push_back(BPF_JUMP(code, k, jt, jf)); }
  void ret(uint32_t action) { stmt(BPF_RET | BPF_K, action); }
};

constexpr uint32_t kKill = SECCOMP_RET_KILL_PROCESS;
constexpr uint32_t errnoAction(int e) { return SECCOMP_RET_ERRNO | (uint32_t(e) & SECCOMP_RET_DATA); }

// No new processes, nothing aimed at another process, no new sessions, no network sockets, no
// changes to namespaces, mounts or the kernel.
bool installProcessFilter(SandboxStatus &status) {
  Filter f;
  f.checkArch();
  const uint64_t self = uint64_t(getpid());
  for (long nr : {long(__NR_execve), long(__NR_execveat), long(__NR_ptrace), long(__NR_process_vm_readv),
                  long(__NR_process_vm_writev), long(__NR_pidfd_open), long(__NR_pidfd_getfd),
                  long(__NR_pidfd_send_signal), long(__NR_setsid), long(__NR_setpgid), long(__NR_unshare),
                  long(__NR_setns), long(__NR_mount), long(__NR_umount2), long(__NR_pivot_root), long(__NR_chroot),
                  long(__NR_bpf), long(__NR_kexec_load), long(__NR_init_module), long(__NR_finit_module),
                  long(__NR_delete_module), long(__NR_reboot), long(__NR_swapon), long(__NR_swapoff),
                  long(__NR_process_madvise), long(__NR_kcmp), long(__NR_tkill)})
    f.onSyscall(nr, kKill);
#ifdef __NR_fork
  f.onSyscall(__NR_fork, kKill);
  f.onSyscall(__NR_vfork, kKill);
#endif
  // Threads yes, processes no. clone3's flags are in memory, out of a filter's reach: ENOSYS makes
  // glibc fall back to clone for its threads.
  f.onSyscall(__NR_clone3, errnoAction(ENOSYS));
  f.onSyscallArgLacks(__NR_clone, 0, CLONE_THREAD, kKill);
  // Signals only to itself (its own threads go through tgkill with its own pid).
  f.onSyscallArgNotEqual(__NR_kill, 0, self, kKill);
  f.onSyscallArgNotEqual(__NR_tgkill, 0, self, kKill);
  f.onSyscallArgNotEqual(__NR_rt_sigqueueinfo, 0, self, kKill);
  f.onSyscallArgNotEqual(__NR_rt_tgsigqueueinfo, 0, self, kKill);
  // Signals by another route: an owner for SIGIO/SIGURG on a descriptor.
  f.onSyscallArgEquals(__NR_fcntl, 1, F_SETOWN, errnoAction(EPERM));
  f.onSyscallArgEquals(__NR_fcntl, 1, F_SETOWN_EX, errnoAction(EPERM));
  f.onSyscallArgEquals(__NR_fcntl, 1, F_SETSIG, errnoAction(EPERM));
  // It keeps the parent-death signal and cannot become a reaper or name a tracer.
  f.onSyscallArgEquals(__NR_prctl, 0, PR_SET_PDEATHSIG, errnoAction(EPERM));
  f.onSyscallArgEquals(__NR_prctl, 0, PR_SET_CHILD_SUBREAPER, errnoAction(EPERM));
  f.onSyscallArgEquals(__NR_prctl, 0, PR_SET_PTRACER, errnoAction(EPERM));
  // io_uring would carry system calls past this filter.
  for (long nr : {long(__NR_io_uring_setup), long(__NR_io_uring_enter), long(__NR_io_uring_register)})
    f.onSyscall(nr, errnoAction(EPERM));
  // UNIX sockets only (the driver's own use); no network.
  for (uint32_t family : {uint32_t(AF_INET), uint32_t(AF_INET6), uint32_t(AF_PACKET), uint32_t(AF_NETLINK)})
    f.onSyscallArgEquals(__NR_socket, 0, family, errnoAction(EACCES));
  f.allow();
  return f.install(status.error);
}

// No code the process writes itself: no page made executable, no anonymous executable mapping,
// no memory file to map. Shared objects from files still load (dlopen).
bool installExecFilter(SandboxStatus &status) {
  Filter f;
  f.checkArch();
  f.onSyscallArgHas(__NR_mprotect, 2, PROT_EXEC, errnoAction(EPERM));
  f.onSyscallArgHas(__NR_pkey_mprotect, 2, PROT_EXEC, errnoAction(EPERM));
  f.onSyscallArgsHave(__NR_mmap, 2, PROT_EXEC, 3, MAP_ANONYMOUS, errnoAction(EPERM));
  f.onSyscall(__NR_memfd_create, errnoAction(EPERM));
  f.allow();
  return f.install(status.error);
}

// Every capability gone, for good: root without them cannot read a non-dumpable process's
// /proc files (the trusted worker makes itself non-dumpable), override file permissions, or
// undo any of the rest.
bool dropCapabilities() {
  for (int cap = 0; cap <= 63; ++cap)
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
      return false;
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  return syscall(__NR_capset, &header, data) == 0;
}

// Lowered, never raised: the parent's limit (the evaluator's output cap on the file size, say) may
// be lower, and raising a hard limit needs CAP_SYS_RESOURCE.
bool setLimit(int resource, uint64_t value) {
  rlimit cur{};
  if (getrlimit(resource, &cur) != 0)
    return false;
  rlim_t v = rlim_t(value);
  if (cur.rlim_max != RLIM_INFINITY && cur.rlim_max < v)
    v = cur.rlim_max;
  rlimit r{v, v};
  return setrlimit(resource, &r) == 0;
}

} // namespace

support::Json SandboxStatus::toJson() const {
  support::Json o = support::Json::object();
  o["landlock_abi"] = landlockAbi;
  o["no_new_privs"] = noNewPrivs;
  o["capabilities_dropped"] = capabilitiesDropped;
  o["landlock_files"] = landlockFiles;
  o["landlock_network"] = landlockNetwork;
  o["landlock_signals"] = landlockSignals;
  o["seccomp"] = seccompFilter;
  o["exec_mappings_forbidden"] = execMappingsForbidden;
  o["resource_limits"] = resourceLimits;
  o["complete"] = complete();
  o["missing"] = missing;
  if (!error.empty())
    o["error"] = error;
  return o;
}

SandboxStatus probeSandbox() {
  SandboxStatus s;
  s.landlockAbi = landlockAbi();
  s.seccompAvailable = kAuditArch != 0 && prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  return s;
}

SandboxStatus applySandbox(const SandboxPolicy &policy) {
  SandboxStatus s = probeSandbox();
  if (policy.cpuSeconds || policy.fileBytes || policy.openFiles) {
    bool ok = setLimit(RLIMIT_CORE, 0);
    if (policy.cpuSeconds)
      ok = setLimit(RLIMIT_CPU, policy.cpuSeconds) && ok;
    if (policy.fileBytes)
      ok = setLimit(RLIMIT_FSIZE, policy.fileBytes) && ok;
    if (policy.openFiles)
      ok = setLimit(RLIMIT_NOFILE, policy.openFiles) && ok;
    s.resourceLimits = ok;
    if (!ok)
      s.missing.push_back("resource limits");
  }
  s.capabilitiesDropped = dropCapabilities();
  if (!s.capabilitiesDropped)
    s.missing.push_back("dropping capabilities");
  // Required for an unprivileged seccomp filter and for Landlock; keeps setuid programs from
  // gaining anything either way.
  s.noNewPrivs = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
  if (!s.noNewPrivs)
    s.missing.push_back("no_new_privs");
  if (policy.landlock) {
    if (s.landlockAbi == 0)
      s.missing.push_back("Landlock (the kernel has none: writes outside the scratch directory are possible)");
    else if (!applyLandlock(policy, s.landlockAbi, s))
      return s;
    if (s.landlockFiles && !s.landlockNetwork)
      s.missing.push_back("Landlock network rules (ABI < 4; sockets are refused by seccomp)");
    if (s.landlockFiles && !s.landlockSignals)
      s.missing.push_back("Landlock signal scoping (ABI < 6; signals are refused by seccomp)");
  }
  if (policy.seccomp) {
    if (!s.seccompAvailable) {
      s.missing.push_back("seccomp");
    } else {
      if (!installProcessFilter(s))
        return s;
      s.seccompFilter = true;
      if (policy.forbidExecMappings)
        forbidNewExecutableMappings(s);
    }
  }
  return s;
}

bool addFileRulesLayer(const SandboxPolicy &policy, SandboxStatus &status) {
  if (status.landlockAbi == 0 || !status.landlockFiles)
    return false;
  return applyLandlock(policy, status.landlockAbi, status);
}

bool forbidNewExecutableMappings(SandboxStatus &status) {
  if (!status.seccompAvailable || !status.noNewPrivs) {
    status.missing.push_back("no new executable mappings (needs seccomp and no_new_privs)");
    return false;
  }
  if (!installExecFilter(status))
    return false;
  status.execMappingsForbidden = true;
  return true;
}

std::vector<std::string> sandboxRules() {
  return {
      "no new processes: fork, vfork, clone without CLONE_THREAD, execve and execveat kill the process",
      "nothing aimed at another process: kill, tgkill, rt_sigqueueinfo and rt_tgsigqueueinfo to any pid but its own, "
      "tkill, ptrace, process_vm_readv/writev, process_madvise, kcmp and pidfd_open/getfd/send_signal kill the process",
      "no new session or process group (setsid, setpgid kill the process); the parent-death signal, subreaper and "
      "tracer settings cannot be changed; no SIGIO owner (fcntl F_SETOWN/F_SETSIG)",
      "no network: sockets other than AF_UNIX fail (EACCES); Landlock refuses TCP bind and connect",
      "no namespaces, mounts, chroot, BPF, kernel modules, reboot or swap; no io_uring (EPERM: it would carry "
      "system calls past the filter)",
      "no new executable memory: mprotect with PROT_EXEC, anonymous executable mmap and memfd_create fail (EPERM)",
      "no capabilities (all dropped, the bounding set too): a non-dumpable process's /proc files are out of reach",
      "files: writes only inside the scratch directory; reads only of the policy's paths (Landlock)",
  };
}

} // namespace cudaperf::runtime
