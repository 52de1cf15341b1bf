//===- Driver.cpp - cudaperf-analyze ---------------------------------------===//
//
// cudaperf-analyze [options] FILE... [-- compiler flags]
// Exit codes: 0 analysed (findings or not); 1 an input could not be analysed, or an analysis of one
// of its kernels stopped with a fault (the rest is reported); 2 bad usage; 3 the run passed
// --deadline-seconds (nothing is reported).
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Tool/Driver.h"
#include "TaskMode.h"
#include "cudaperf/Analysis/FaultIsolation.h"
#include "cudaperf/Analysis/OccupancyFacts.h"
#include "cudaperf/Analysis/Resources.h"
#include "cudaperf/Checks/Check.h"
#include "cudaperf/Frontend/Frontend.h"
#include "cudaperf/Report/Writers.h"
#include "cudaperf/Support/Arch.h"
#include "cudaperf/Support/GpuTable.h"
#include "cudaperf/Tool/ArchSelection.h"
#include "clang/Basic/Stack.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <csignal>
#include <pthread.h>
#include <string.h>
#include <thread>
#include <unistd.h>

namespace cl = llvm::cl;

namespace cudaperf {

namespace {

cl::OptionCategory Category("cudaperf-analyze options");

struct Options {
  cl::list<std::string> Files{cl::Positional, cl::desc("<file.cu>..."), cl::cat(Category)};
  cl::opt<std::string> BuildPath{"p", cl::desc("Directory with compile_commands.json"),
                                 cl::value_desc("dir"), cl::cat(Category)};
  cl::opt<std::string> Arch{"arch",
                            cl::desc("Target GPU architecture (default: the compile command's, "
                                     "else sm_90)"),
                            cl::init("sm_90"), cl::value_desc("sm_XX"), cl::cat(Category)};
  cl::opt<std::string> Gpu{"gpu",
                           cl::desc("Target GPU model (B200, H100-SXM, RTX-5090, ...): its "
                                    "architecture, SM count and roofline peaks"),
                           cl::value_desc("name"), cl::cat(Category)};
  cl::opt<std::string> Format{"format", cl::desc("Output on stdout: text (default) or json"),
                              cl::init("text"), cl::value_desc("text|json"), cl::cat(Category)};
  cl::opt<std::string> Sarif{"sarif", cl::desc("Also write SARIF 2.1.0 to this file"),
                             cl::value_desc("file"), cl::cat(Category)};
  cl::opt<std::string> SourceRoot{
      "source-root", cl::desc("Paths in the output are relative to this directory (default: cwd)"),
      cl::value_desc("dir"), cl::cat(Category)};
  cl::list<std::string> Launch{
      "launch", cl::desc("Launch configuration of a kernel: KERNEL:GRID:BLOCK[:SMEM], dims as "
                         "N, NxM or NxMxK; GRID may be empty (KERNEL::256)"),
      cl::value_desc("spec"), cl::cat(Category)};
  cl::list<std::string> Param{"param",
                              cl::desc("Value of a scalar kernel parameter: KERNEL:NAME=VALUE"),
                              cl::value_desc("spec"), cl::cat(Category)};
  cl::opt<std::string> Headers{
      "cuda-headers",
      cl::desc("CUDA headers: auto (toolkit if found), sdk (toolkit), builtin (no toolkit)"),
      cl::init("auto"), cl::value_desc("auto|sdk|builtin"), cl::cat(Category)};
  cl::opt<std::string> CudaPath{"cuda-path", cl::desc("CUDA toolkit root (default: $CUDA_PATH, "
                                                      "then /usr/local/cuda)"),
                                cl::value_desc("dir"), cl::cat(Category)};
  cl::opt<std::string> ResourceDir{"resource-dir", cl::desc("Clang resource directory"),
                                   cl::value_desc("dir"), cl::cat(Category)};
  cl::list<std::string> ExtraArgs{"extra-arg", cl::desc("Extra compiler argument"),
                                  cl::value_desc("arg"), cl::cat(Category)};
  cl::opt<std::string> Checks{
      "checks", cl::desc("Checks to run: comma-separated globs, '-' to remove (default '*'; e.g. "
                         "'-*,cuda-missing-barrier')"),
      cl::init("*"), cl::value_desc("globs"), cl::cat(Category)};
  cl::opt<unsigned> MaxKernels{
      "max-kernels", cl::desc("Analyse at most this many kernels per file; the rest are listed "
                              "with a note (default 256)"),
      cl::init(256), cl::value_desc("n"), cl::cat(Category)};
  cl::opt<bool> ListChecks{"list-checks", cl::desc("List the checks and exit"), cl::cat(Category)};
  cl::opt<bool> OccupancyTable{
      "occupancy-table",
      cl::desc("Also print each kernel's theoretical occupancy for block sizes 32..1024 (text)"),
      cl::cat(Category)};
  cl::opt<uint64_t> AnalysisSteps{
      "analysis-steps",
      cl::desc("Lane-evaluation steps one kernel's analyses may take; beyond, facts are unknown "
               "and the kernel gets a note (default 20000000)"),
      cl::init(WorkLimits().EvaluatorSteps), cl::value_desc("n"), cl::cat(Category)};
  cl::opt<double> AnalysisSeconds{
      "analysis-seconds",
      cl::desc("Seconds one kernel's analyses may take; beyond, facts are unknown and the kernel "
               "gets a note (default 30)"),
      cl::init(WorkLimits().Seconds), cl::value_desc("s"), cl::cat(Category)};
  cl::opt<double> DeadlineSeconds{
      "deadline-seconds",
      cl::desc("Wall-clock seconds for the whole run (clang's parse, the analyses, NVIDIA's "
               "compiler for registers, every file); past it the analyzer stops, kills its "
               "compilers and exits with code 3, reporting nothing (default 240 for each file "
               "named; none for a whole compilation database; 0: no deadline)"),
      cl::init(240), cl::value_desc("s"), cl::cat(Category)};
  cl::opt<unsigned> MaxInstantiations{
      "max-instantiations",
      cl::desc("Instantiations of one template kernel that get the memory, work and barrier "
               "analyses; later ones get resources and occupancy only (default 32)"),
      cl::init(32), cl::value_desc("n"), cl::cat(Category)};
  cl::opt<std::string> InjectFault{
      "inject-fault",
      cl::desc("Raise a fault (segv, fpe, abort, stack-overflow, fatal-error) when ANALYSIS "
               "(default: the first) starts on KERNEL, or at the end of the parse of file NAME "
               "when KERNEL is @NAME (tests the fault isolation)"),
      cl::value_desc("KERNEL:KIND[:ANALYSIS]"), cl::Hidden, cl::cat(Category)};
  cl::opt<std::string> Task{
      "task", cl::desc("Evaluate the candidate's entry point at the configurations of this task "
                       "directory and analyse every launch it makes (docs/json-schema.md)"),
      cl::value_desc("dir"), cl::cat(Category)};
  cl::opt<std::string> Config{"config",
                              cl::desc("With --task: the configurations to evaluate, 'all' "
                                       "(default) or names separated by commas"),
                              cl::init("all"), cl::value_desc("name|all"), cl::cat(Category)};
  cl::opt<bool> DumpIR{"dump-ir",
                       cl::desc("Print the optimised device IR the analyses read to stderr "
                                "(for developers)"),
                       cl::Hidden, cl::cat(Category)};
};

} // namespace

bool writeSarifFile(const std::string &Path, const std::vector<FileReport> &Reports,
                    const CheckFilter &Filter, const ReportOptions &RO) {
  std::vector<const CheckInfo *> Rules;
  for (const auto &C : allChecks())
    if (Filter.enabled(C->info().Name))
      Rules.push_back(&C->info());
  std::error_code EC;
  llvm::ToolOutputFile Out(Path, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    llvm::WithColor::error(llvm::errs(), "cudaperf-analyze")
        << "cannot write SARIF to '" << Path << "': " << EC.message() << "\n";
    return false;
  }
  Out.os() << llvm::formatv("{0:2}", reportToSARIF(Reports, Rules, RO)) << "\n";
  Out.keep();
  return true;
}

std::optional<ParsedFile> parseFileIsolated(const clang::tooling::CompilationDatabase &DB,
                                            const std::string &File, const FrontendOptions &FO,
                                            llvm::StringRef InjectFaultKind) {
  std::vector<ParsedFile> Parsed;
  if (std::optional<Fault> F = runIsolated([&] {
        Parsed = parseFiles(DB, {File}, FO);
        // With the parse's results alive, as a fault in clang would leave them.
        if (!InjectFaultKind.empty())
          injectFault(InjectFaultKind);
      })) {
    // What the faulting parse left behind may be inconsistent: leak it rather than destroy it.
    for (ParsedFile &P : Parsed) {
      (void)P.DeviceModule.release();
      (void)P.Context.release();
    }
    llvm::WithColor::error(llvm::errs(), "cudaperf-analyze")
        << "'" << File << "' could not be analysed: the parser stopped with a fault ("
        << F->Description << "); this is a cudaperf defect, please report it with the file\n";
    return std::nullopt;
  }
  if (Parsed.empty() || !Parsed.front().Success) {
    llvm::WithColor::error(llvm::errs(), "cudaperf-analyze")
        << "'" << File << "' could not be analysed (see clang's messages above)\n";
    return std::nullopt;
  }
  return std::move(Parsed.front());
}

bool runChecksIsolated(FileReport &R, const CheckFilter &Filter) {
  std::optional<Fault> F = runIsolated([&] { runChecks(R, Filter); });
  if (!F)
    return true;
  R.Diagnostics.clear();
  llvm::WithColor::error(llvm::errs(), "cudaperf-analyze")
      << "the checks of '" << R.File << "' stopped with a fault (" << F->Description
      << "); its findings are not reported; this is a cudaperf defect, please report it with "
         "the file\n";
  return false;
}

/// Files larger than this get the register compile only on demand, not prefetched.
constexpr uint64_t PrefetchMaxBytes = 2 << 20;

/// SIGINT, SIGTERM and SIGHUP are blocked in every thread (before any is started, so all inherit
/// the mask) and taken by one thread with sigwait: whatever handler a library installs (NVRTC's
/// process, clang's crash recovery), the analyzer stops at once with a message and exit code 1,
/// after LLVM's interrupt handlers removed its temporary files, instead of unwinding a parse that
/// may be blocked or deep in clang ("terminate called", a false fault report).
void stopOnInterruptSignals() {
  sigset_t Set;
  sigemptyset(&Set);
  for (int S : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&Set, S);
  if (pthread_sigmask(SIG_BLOCK, &Set, nullptr) != 0)
    return;
  std::thread([Set] {
    int Sig = 0;
    while (sigwait(&Set, &Sig) != 0) {
    }
    llvm::sys::RunInterruptHandlers();
    std::string Message = std::string("cudaperf-analyze: stopped by SIG") + sigabbrev_np(Sig) + "; nothing was reported\n";
    (void)!write(STDERR_FILENO, Message.data(), Message.size());
    _exit(ExitInputError);
  }).detach();
}

/// Kills the process group of every child of this process (the register compile's nvcc runs in
/// a group of its own, with cicc and ptxas under it), so that none outlives the analyzer.
void killChildProcessGroups() {
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It("/proc", EC), End; It != End && !EC; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    int Pid = 0;
    if (Name.getAsInteger(10, Pid))
      continue;
    auto Stat = llvm::MemoryBuffer::getFileAsStream(It->path() + "/stat");
    if (!Stat)
      continue;
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses; the last ')' ends it.
    llvm::StringRef Rest = (*Stat)->getBuffer();
    Rest = Rest.substr(Rest.rfind(')') + 1);
    llvm::SmallVector<llvm::StringRef, 4> Fields;
    Rest.trim().split(Fields, ' ', 3);
    int Parent = 0, Group = 0;
    if (Fields.size() < 3 || Fields[1].getAsInteger(10, Parent) || Fields[2].getAsInteger(10, Group) ||
        Parent != getpid())
      continue;
    kill(Group == Pid ? -Pid : Pid, SIGKILL); // never this process's own group
  }
}

/// The whole-run deadline: a thread that, when it passes, says so, kills the compilers this
/// process started and exits with ExitDeadline, wherever the parse or an analysis is (clang's
/// optimizer and NVRTC are outside --analysis-seconds; a file can take minutes in them).
void armRunDeadline(double Seconds) {
  if (!(Seconds > 0))
    return;
  auto Until = std::chrono::steady_clock::now() + std::chrono::duration<double>(Seconds);
  std::thread([Until, Seconds] {
    while (std::chrono::steady_clock::now() < Until)
      std::this_thread::sleep_until(Until);
    std::string Message = "cudaperf-analyze: stopped after --deadline-seconds=" + llvm::formatv("{0}", Seconds).str() +
                          " (the whole run: parse, analyses and NVIDIA's compiler); nothing was reported\n";
    (void)!write(STDERR_FILENO, Message.data(), Message.size());
    killChildProcessGroups();
    llvm::sys::RunInterruptHandlers(); // temporary files
    _exit(ExitDeadline);
  }).detach();
}

int runAnalyzeTool(int Argc, const char **Argv) {
  stopOnInterruptSignals();
  // Lets clang's parser notice deep recursion (template instantiation, nested expressions) and
  // continue on a larger stack instead of overflowing this one.
  clang::noteBottomOfStack();
  // Split off the compiler flags after "--" (nvcc-style flags are translated first: clang's
  // driver would reject them).
  std::unique_ptr<clang::tooling::CompilationDatabase> DB;
  std::vector<std::string> CodeGenerationFlags; // nvcc's, for the register compile
  std::vector<std::string> RawFlags;            // as given after "--", for their architecture
  for (int I = 1; I < Argc; ++I) {
    if (llvm::StringRef(Argv[I]) != "--")
      continue;
    std::vector<std::string> Flags = {"nvcc"};
    Flags.insert(Flags.end(), Argv + I + 1, Argv + Argc);
    RawFlags = Flags;
    CodeGenerationFlags = nvccCodeGenerationFlags(Flags);
    Flags = translateNvccArgs(Flags);
    Flags.erase(Flags.begin());
    DB = std::make_unique<clang::tooling::FixedCompilationDatabase>(".", Flags);
    Argc = I;
    break;
  }

  Options O;
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "cudaperf-analyze " << toolVersion() << " (LLVM " << LLVM_VERSION_STRING << ")\n";
  });
  if (!cl::ParseCommandLineOptions(Argc, Argv,
                                   "cudaperf-analyze: why a CUDA kernel will be slow, before it runs\n",
                                   &llvm::errs()))
    return ExitUsage;
  auto usage = [](const std::string &Msg) {
    llvm::WithColor::error(llvm::errs(), "cudaperf-analyze") << Msg << "\n";
    return ExitUsage;
  };

  CheckFilter Filter(O.Checks);
  if (auto Unmatched = Filter.unmatchedPatterns(); !Unmatched.empty())
    return usage("--checks pattern '" + Unmatched.front() + "' matches no check (see --list-checks)");
  if (O.ListChecks) {
    for (const auto &C : allChecks())
      if (Filter.enabled(C->info().Name))
      llvm::outs() << C->info().Name << " (" << toString(C->info().DefaultSeverity) << "): "
                   << C->info().Summary << "\n";
    return ExitAnalysed;
  }
  if (O.Files.empty())
    return usage("no input files (usage: cudaperf-analyze [options] FILE... [-- flags])");
  if (O.Format != "text" && O.Format != "json")
    return usage("--format must be 'text' or 'json', not '" + O.Format + "'");
  // The architecture: --gpu's, else --arch, else each file's compile command's, else sm_90.
  const bool ArchGiven = O.Arch.getNumOccurrences() > 0;
  std::string FixedArch; // --gpu's or --arch's; empty: per file
  if (ArchGiven) {
    if (!support::parseSmTarget(O.Arch))
      return usage("--arch must look like sm_90, not '" + O.Arch + "' (known: " + knownArchList() + ")");
    if (!support::findGpuArch(O.Arch))
      return usage("unknown architecture --arch=" + O.Arch + " (known: " + knownArchList() + ")");
    FixedArch = O.Arch;
  }
  if (O.Gpu.getNumOccurrences() > 0) {
    const support::GpuDevice *Dev = support::findGpuDevice(O.Gpu);
    if (!Dev)
      return usage("unknown GPU --gpu=" + O.Gpu + " (known: " + knownGpuList() + ")");
    std::string DevArch = "sm_" + std::to_string(Dev->major * 10 + Dev->minor);
    auto CC = support::parseArch(O.Arch);
    if (ArchGiven && (!CC || CC->major != Dev->major || CC->minor != Dev->minor))
      return usage("--gpu=" + O.Gpu + " is " + DevArch + ", not --arch=" + O.Arch);
    if (!ArchGiven)
      FixedArch = DevArch;
  }

  FrontendOptions FO;
  FO.Arch = O.Arch;
  if (O.Headers == "auto") FO.Headers = HeaderMode::Auto;
  else if (O.Headers == "sdk") FO.Headers = HeaderMode::SDK;
  else if (O.Headers == "builtin") FO.Headers = HeaderMode::Builtin;
  else return usage("--cuda-headers must be auto, sdk or builtin, not '" + O.Headers + "'");
  FO.CudaPath = O.CudaPath;
  FO.ResourceDir = O.ResourceDir;
  FO.ExtraArgs.assign(O.ExtraArgs.begin(), O.ExtraArgs.end());
  if (FO.Headers == HeaderMode::SDK && resolveCudaPath(FO).empty())
    return usage("--cuda-headers=sdk but no CUDA toolkit was found (set --cuda-path or CUDA_PATH)");
  if (!FO.ResourceDir.empty() && !llvm::sys::fs::is_directory(FO.ResourceDir))
    return usage("--resource-dir '" + FO.ResourceDir + "' is not a directory");

  AnalyzerOptions AO;
  AO.Gpu = O.Gpu.getNumOccurrences() ? support::findGpuDevice(O.Gpu)->name : "";
  AO.MaxKernels = O.MaxKernels;
  AO.Limits.EvaluatorSteps = O.AnalysisSteps;
  AO.Limits.Seconds = O.AnalysisSeconds;
  AO.MaxInstantiations = O.MaxInstantiations;
  if (!(O.AnalysisSeconds > 0))
    return usage("--analysis-seconds must be positive");
  if (!(O.DeadlineSeconds >= 0) || O.DeadlineSeconds > 1e7)
    return usage("--deadline-seconds must be between 0 (none) and 10000000");
  // Unless given, the deadline grows with the files named (a project's many files are not one
  // hostile file's 240 s); with none named (a whole compilation database) there is none.
  armRunDeadline(O.DeadlineSeconds.getNumOccurrences() ? double(O.DeadlineSeconds)
                                                       : double(O.DeadlineSeconds) * double(O.Files.size()));
  std::string ParseFault, ParseFaultFile;
  if (!O.InjectFault.empty()) {
    llvm::SmallVector<llvm::StringRef, 3> Parts;
    llvm::StringRef(O.InjectFault).split(Parts, ':');
    if (Parts.size() < 2 || Parts[0].empty() || !isInjectableFault(Parts[1]))
      return usage("--inject-fault must be KERNEL:KIND[:ANALYSIS] with KIND one of segv, fpe, "
                   "abort, stack-overflow, fatal-error, not '" + O.InjectFault + "'");
    if (Parts[0].starts_with("@")) {
      ParseFaultFile = Parts[0].drop_front().str();
      ParseFault = Parts[1].str();
    } else {
      AO.InjectFault = O.InjectFault;
    }
  }
  for (const std::string &Spec : O.Launch) {
    LaunchOverride L;
    std::string Err;
    auto Kernel = parseLaunchOption(Spec, L, Err);
    if (!Kernel)
      return usage(Err);
    AO.Launches[*Kernel] = L;
  }
  for (const std::string &Spec : O.Param) {
    std::string Name, Err;
    ParamValue V;
    auto Kernel = parseParamOption(Spec, Name, V, Err);
    if (!Kernel)
      return usage(Err);
    AO.Params[*Kernel][Name] = V;
  }

  if (!O.BuildPath.empty()) {
    if (DB)
      return usage("give compiler flags either after '--' or through -p, not both");
    std::string Err;
    DB = clang::tooling::CompilationDatabase::loadFromDirectory(O.BuildPath, Err);
    if (!DB)
      return usage("cannot load compile_commands.json from '" + O.BuildPath + "': " + Err);
  }
  if (!DB)
    DB = std::make_unique<clang::tooling::FixedCompilationDatabase>(".", std::vector<std::string>{});
  // Files missing from a compile database borrow the flags of their nearest neighbour.
  DB = clang::tooling::inferMissingCompileCommands(std::move(DB));

  // Per file: the architecture, where it came from, what clang parses the device code as, and
  // the notes that say so (printed once each).
  struct FileArch {
    std::string Arch, Origin, ClangArch;
    std::vector<std::string> Notes;
  };
  auto archFor = [&](const std::string &File) {
    FileArch FA;
    std::vector<std::string> Targets;
    if (!RawFlags.empty()) {
      Targets = archsOfCompileCommand(RawFlags);
    } else if (!O.BuildPath.empty()) {
      llvm::SmallString<256> Abs(File);
      llvm::sys::fs::make_absolute(Abs);
      std::vector<clang::tooling::CompileCommand> Commands = DB->getCompileCommands(Abs);
      if (!Commands.empty())
        Targets = archsOfCompileCommand(Commands.front().CommandLine);
    }
    // Only architectures the table has count; the others are named in a note.
    std::vector<std::string> Usable;
    for (const std::string &T : Targets)
      if (support::findGpuArch(T) && support::parseSmTarget(T))
        Usable.push_back(T);
    std::string Listed;
    for (const std::string &T : Targets)
      Listed += (Listed.empty() ? "" : ", ") + T;
    if (!FixedArch.empty()) {
      FA.Arch = FixedArch;
      FA.Origin = O.Gpu.getNumOccurrences() ? "gpu" : "option";
      if (!Targets.empty() && std::find(Targets.begin(), Targets.end(), FixedArch) == Targets.end())
        FA.Notes.push_back("'" + File + "' is analysed for " + FixedArch + " (" +
                           (FA.Origin == "gpu" ? "--gpu" : "--arch") +
                           "); its compile command targets " + Listed);
    } else if (!Usable.empty()) {
      FA.Arch = newestArch(Usable);
      FA.Origin = "compile-command";
      FA.Notes.push_back("'" + File + "' is analysed for " + FA.Arch +
                         ", the architecture of its compile command" +
                         (Targets.size() > 1 ? " (the newest of " + Listed + ")" : ""));
    } else {
      FA.Arch = "sm_90";
      FA.Origin = "default";
      if (!Targets.empty())
        FA.Notes.push_back("'" + File + "': the compile command's architecture (" + Listed +
                           ") has no row in cudaperf's GPU table; analysed for sm_90 (known: " +
                           knownArchList() + ")");
    }
    FA.ClangArch = clangDeviceArch(FA.Arch);
    if (FA.ClangArch != FA.Arch)
      FA.Notes.push_back("clang " + std::to_string(LLVM_VERSION_MAJOR) +
                         " cannot generate device code for " + FA.Arch +
                         ": the device code is parsed as " + FA.ClangArch + " (__CUDA_ARCH__ " +
                         std::to_string(support::parseArch(FA.ClangArch)->number() * 10) +
                         "); registers (NVIDIA's compiler), occupancy and the roofline are " +
                         FA.Arch + "'s");
    return FA;
  };
  auto frontendFor = [&](const FileArch &FA) {
    FrontendOptions F = FO;
    F.Arch = FA.ClangArch;
    if (FA.ClangArch != FA.Arch) // CCCL's namespaces name nvcc's architecture list (sm_100: 1000)
      if (auto CC = support::parseArch(FA.Arch))
        F.ExtraArgs.insert(F.ExtraArgs.begin(), {"-U__CUDA_ARCH_LIST__",
                                                 "-D__CUDA_ARCH_LIST__=" + std::to_string(CC->number() * 10)});
    return F;
  };
  std::vector<std::string> NotesShown;
  auto showNotes = [&](const FileArch &FA) {
    for (const std::string &N : FA.Notes)
      if (std::find(NotesShown.begin(), NotesShown.end(), N) == NotesShown.end()) {
        NotesShown.push_back(N);
        if (O.Format != "json")
          llvm::WithColor::note(llvm::errs(), "cudaperf-analyze") << N << "\n";
      }
  };

  ReportOptions RO;
  RO.Arch = FixedArch.empty() ? archFor(O.Files.front()).Arch : FixedArch;
  RO.SourceRoot = O.SourceRoot;

  if (O.Task.empty() && O.Config != "all")
    return usage("--config needs --task");
  if (!O.Task.empty()) {
    if (O.Files.size() != 1)
      return usage("--task analyses one candidate file, not " + std::to_string(O.Files.size()));
    FileArch FA = archFor(O.Files.front());
    showNotes(FA);
    AO.Arch = FA.Arch;
    RO.Arch = FA.Arch;
    FO = frontendFor(FA);
    TaskModeOptions TO;
    TO.TaskDir = O.Task;
    TO.Configs = O.Config;
    TO.File = O.Files.front();
    TO.Json = O.Format == "json";
    TO.Sarif = O.Sarif;
    return runTaskMode(TO, *DB, FO, AO, RO, Filter);
  }

  int Exit = ExitAnalysed;
  std::vector<FileReport> Reports;
  std::vector<FileArch> Archs; // per report
  for (const std::string &File : O.Files) {
    FileReport R;
    R.File = File;
    Archs.push_back(archFor(File));
    const FileArch &FA = Archs.back();
    showNotes(FA);
    if (std::string Err = checkInputFile(File); !Err.empty()) {
      llvm::WithColor::error(llvm::errs(), "cudaperf-analyze") << Err << "\n";
      Exit = ExitInputError;
      Reports.push_back(std::move(R));
      continue;
    }
    AnalyzerOptions FileAO = AO;
    FileAO.Arch = FA.Arch;
    FileAO.CompileArgs = sourceMeaningFlags(*DB, File);
    FileAO.CompileArgs.insert(FileAO.CompileArgs.end(), CodeGenerationFlags.begin(),
                              CodeGenerationFlags.end());
    llvm::SmallString<256> MainFile(File);
    llvm::sys::fs::make_absolute(MainFile);
    FileAO.MainFile = std::string(MainFile);
    // NVIDIA's compiler runs for registers while clang parses (the file's cost is then the longer
    // of the two, not their sum); an unused prefetch is cancelled when the file is done. Generated
    // files of megabytes, which mostly end up over --max-kernels, only when asked for.
    struct CancelPrefetchAtEnd {
      ~CancelPrefetchAtEnd() { cancelResourcePrefetches(); }
    } CancelPrefetch;
    uint64_t Size = 0;
    if (!llvm::sys::fs::file_size(File, Size) && Size <= PrefetchMaxBytes && !includesSpecialFile(File))
      if (std::optional<ResourceRequest> Req = fileResourceRequest(FileAO))
        prefetchResources(*Req);
    std::optional<ParsedFile> PF = parseFileIsolated(
        *DB, File, frontendFor(FA), llvm::sys::path::filename(File) == ParseFaultFile ? ParseFault : "");
    if (!PF) {
      Exit = ExitInputError;
      Reports.push_back(std::move(R));
      continue;
    }
    R.Analysed = true;
    R.Kernels = std::move(PF->Kernels);
    if (O.DumpIR && PF->DeviceModule)
      PF->DeviceModule->print(llvm::errs(), nullptr);
    analyzeModule(PF->DeviceModule.get(), R.Kernels, FileAO);
    if (!runChecksIsolated(R, Filter))
      Exit = ExitInputError;
    // A fault in an analysis is reported for its kernel (cudaperf-analysis-fault); the exit code
    // says the file was not fully analysed.
    for (const KernelReport &K : R.Kernels)
      if (!K.AnalysisFaults.empty())
        Exit = ExitInputError;
    Reports.push_back(std::move(R));
  }

  if (!O.Sarif.empty() && !writeSarifFile(O.Sarif, Reports, Filter, RO))
    return ExitInputError;
  if (O.Format == "json") {
    llvm::json::Value Document = reportToJSON(Reports, RO);
    // Each file's architecture, where it came from and what clang parsed the device code as.
    if (llvm::json::Object *Doc = Document.getAsObject()) {
      if (!AO.Gpu.empty())
        (*Doc)["gpu"] = AO.Gpu;
      if (llvm::json::Array *Files = Doc->getArray("files"))
        for (size_t I = 0; I < Files->size() && I < Archs.size(); ++I)
          if (llvm::json::Object *F = (*Files)[I].getAsObject()) {
            llvm::json::Array Notes;
            for (const std::string &N : Archs[I].Notes)
              Notes.push_back(N);
            (*F)["target"] = llvm::json::Object{{"arch", Archs[I].Arch},
                                                {"origin", Archs[I].Origin},
                                                {"device_ir_arch", Archs[I].ClangArch},
                                                {"notes", std::move(Notes)}};
          }
    }
    llvm::outs() << llvm::formatv("{0:2}", Document) << "\n";
  } else {
    writeTextDiagnostics(Reports, RO, llvm::errs());
    writeTextSummary(Reports, RO, llvm::outs());
    if (O.OccupancyTable)
      for (size_t I = 0; I < Reports.size(); ++I)
        printOccupancyTable(Reports[I], Archs[I].Arch, llvm::outs());
  }
  return Exit;
}

} // namespace cudaperf
