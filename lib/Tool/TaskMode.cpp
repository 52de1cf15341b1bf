//===- TaskMode.cpp - cudaperf-analyze --task TASK_DIR [--config NAME|all] CANDIDATE.cu -===//
//
// The task's entry point is run on the AST at each configuration (lib/Frontend's host-code
// evaluator); each distinct launch it makes is analysed at exactly its grid, block, dynamic
// shared memory and scalar arguments (origin "task-config"), with the same analyses and checks as
// the file's kernels. Identical launches of one configuration share a report (same_report_as);
// identical launches of different configurations are analysed once.
//
//===----------------------------------------------------------------------===//
#include "TaskMode.h"
#include "TaskSpec.h"
#include "cudaperf/Support/GpuTable.h"
#include "cudaperf/Tool/Driver.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"
#include <deque>

namespace cudaperf {

namespace {

llvm::raw_ostream &error() { return llvm::WithColor::error(llvm::errs(), "cudaperf-analyze"); }

/// What the host code learns from device queries: the --arch row of cudaperf's tables and the
/// device assumed for it.
HostDevice deviceFor(const std::string &Arch, const std::string &Gpu) {
  HostDevice D;
  const support::GpuArch *A = support::findGpuArch(Arch);
  if (!A)
    return D;
  D.Major = A->major;
  D.Minor = A->minor;
  D.WarpSize = A->warpSize;
  D.MaxThreadsPerBlock = A->maxThreadsPerBlock;
  D.MaxThreadsPerMultiProcessor = A->maxThreadsPerSM;
  D.MaxBlocksPerMultiProcessor = A->maxBlocksPerSM;
  D.SharedMemPerBlock = A->sharedMemPerBlock;
  D.SharedMemPerBlockOptin = A->sharedMemPerBlockOptin;
  D.SharedMemPerMultiProcessor = A->sharedMemPerSM;
  D.RegistersPerBlock = A->registersPerBlock;
  D.RegistersPerMultiProcessor = A->registersPerSM;
  const support::GpuDevice *Dev = support::findGpuDevice(Gpu); // --gpu
  if (!Dev || Dev->major != A->major || Dev->minor != A->minor)
    Dev = support::defaultGpuDevice(A->major, A->minor);
  if (Dev) {
    D.Name = Dev->name;
    D.MultiProcessors = Dev->sms;
  }
  return D;
}

HostEntryRequest requestFor(const TaskSpec &Task, const std::string &Arch, const std::string &Gpu) {
  HostEntryRequest R;
  R.Entry = Task.Entry;
  R.Device = deviceFor(Arch, Gpu);
  for (const TaskSpec::Configuration &C : Task.Configurations) {
    HostConfiguration H;
    H.Name = C.Name;
    for (size_t I = 0; I < Task.Args.size(); ++I) {
      const TaskSpec::Argument &A = Task.Args[I];
      HostArgument HA;
      HA.Name = A.Name;
      HA.IsPointer = A.IsPointer;
      HA.IsInteger = A.IsInteger;
      HA.Scalar = C.Scalars[I];
      HA.Elements = C.Elements[I];
      HA.ElementBytes = A.ElementBytes;
      H.Args.push_back(HA);
    }
    R.Configurations.push_back(std::move(H));
  }
  return R;
}

/// The launch configuration a report at \p L is analysed with.
LaunchConfig launchConfigFor(const EvaluatedLaunch &L, KernelReport &K, const HostConfiguration &C,
                             const AnalyzerOptions &AO) {
  LaunchConfig Out;
  Out.Origin = LaunchOrigin::TaskConfig;
  Out.Grid = L.Grid;
  if (L.Block) {
    Out.Block = *L.Block;
  } else {
    Out.Block = K.LaunchBoundsMaxThreads ? Dim3{*K.LaunchBoundsMaxThreads, 1, 1} : AO.AssumedBlock;
    K.Notes.push_back("the block of this launch is not known; analysed with " + Out.Block.str() +
                      (K.LaunchBoundsMaxThreads ? " (__launch_bounds__)" : " (assumed)"));
  }
  Out.DynamicSmemBytes = L.DynamicSmemBytes.value_or(0);
  if (!L.DynamicSmemBytes)
    K.Notes.push_back("the dynamic shared memory of this launch is not known; analysed with 0");
  for (size_t I = 0; I < K.Params.size(); ++I) {
    const std::string &Name = K.Params[I].Name;
    if (I < L.ScalarArgs.size() && L.ScalarArgs[I])
      Out.Params[Name] = *L.ScalarArgs[I];
    if (I >= L.PointerArgs.size() || !L.PointerArgs[I])
      continue;
    const LaunchPointerArg &P = *L.PointerArgs[I];
    if (P.K == LaunchPointerArg::Kind::Argument) {
      for (const HostArgument &A : C.Args)
        if (A.Name == P.Argument)
          Out.PointerExtentBytes[Name] = A.Elements * A.ElementBytes - P.OffsetBytes;
    } else if (P.K == LaunchPointerArg::Kind::Scratch && P.ScratchBytes) {
      Out.PointerExtentBytes[Name] = *P.ScratchBytes - P.OffsetBytes;
    }
  }
  return Out;
}

/// Launches that share a report: same kernel, grid, block, dynamic shared memory and scalars.
std::string reportKey(const EvaluatedLaunch &L) {
  std::string K = L.MangledName + "|" + (L.Grid ? L.Grid->str() : "?") + "|" +
                  (L.Block ? L.Block->str() : "?") + "|" +
                  (L.DynamicSmemBytes ? std::to_string(*L.DynamicSmemBytes) : "?");
  for (const auto &A : L.ScalarArgs) {
    K += "|";
    if (A)
      K += std::holds_alternative<int64_t>(*A) ? std::to_string(std::get<int64_t>(*A))
                                               : llvm::formatv("{0:e17}", std::get<double>(*A)).str();
  }
  return K;
}

} // namespace

int runTaskMode(const TaskModeOptions &TO, const clang::tooling::CompilationDatabase &DB,
                FrontendOptions FO, const AnalyzerOptions &AO, const ReportOptions &RO,
                const CheckFilter &Filter) {
  TaskSpec Task;
  std::string Err;
  switch (loadTaskSpec(TO.TaskDir, TO.Configs, Task, Err)) {
  case TaskLoadStatus::Ok:
    break;
  case TaskLoadStatus::BadTask:
    error() << "the task '" << TO.TaskDir << "' does not load:\n" << Err << "\n";
    return ExitInputError;
  case TaskLoadStatus::UnknownConfiguration:
    error() << "--config: " << Err << "\n";
    return ExitUsage;
  }
  if (std::string E = checkInputFile(TO.File); !E.empty()) {
    error() << E << "\n";
    return ExitInputError;
  }

  HostEntryRequest Request = requestFor(Task, AO.Arch, AO.Gpu);
  FO.Entry = &Request;
  if (!Task.Flags.empty()) {
    std::vector<std::string> Flags = {"nvcc"};
    Flags.insert(Flags.end(), Task.Flags.begin(), Task.Flags.end());
    Flags = translateNvccArgs(Flags);
    FO.ExtraArgs.insert(FO.ExtraArgs.end(), Flags.begin() + 1, Flags.end());
  }
  std::optional<ParsedFile> Parsed = parseFileIsolated(DB, TO.File, FO);
  if (!Parsed)
    return ExitInputError;
  ParsedFile &PF = *Parsed;

  FileReport R;
  R.File = TO.File;
  R.Analysed = true;
  R.Kernels = std::move(PF.Kernels);
  const std::vector<KernelReport> Base = R.Kernels; // AST facts, before any analysis

  TaskReport T;
  T.Name = Task.Name;
  T.Dir = Task.Dir;
  T.Entry = Task.Entry;
  T.Kind = Task.Kind;

  // One report per distinct launch (site and pointer extents included, since they show in it),
  // analysed together after the file's kernels.
  std::deque<KernelReport> AtLaunch;
  std::map<std::string, size_t> AtLaunchIndex;
  std::vector<std::vector<std::optional<size_t>>> ReportOf(Request.Configurations.size());
  std::vector<std::vector<KernelReport>> FailingLaunches(Request.Configurations.size());

  for (size_t CI = 0; CI < Request.Configurations.size(); ++CI) {
    const HostConfiguration &HC = Request.Configurations[CI];
    if (CI >= PF.HostEvaluations.size())
      break; // the front end ran no evaluation (it reports why)
    const HostEvaluation &E = PF.HostEvaluations[CI];
    TaskConfigurationReport C;
    C.Name = HC.Name;
    for (const HostArgument &A : HC.Args) {
      if (A.IsPointer)
        C.PointerElements.emplace_back(A.Name, A.Elements);
      else if (A.IsInteger)
        C.Values.emplace_back(A.Name, ParamValue(int64_t(A.Scalar)));
      else
        C.Values.emplace_back(A.Name, ParamValue(A.Scalar));
    }
    C.EntryFound = E.EntryFound;
    C.LaunchesComplete = E.EntryFound && E.Complete;
    C.Reason = E.Reason;
    C.Notes = E.Notes;
    std::map<std::string, unsigned> FirstWithKey;
    for (size_t LI = 0; LI < E.Launches.size(); ++LI) {
      const EvaluatedLaunch &L = E.Launches[LI];
      TaskLaunchReport TL;
      TL.Index = unsigned(LI);
      TL.Launch = L;
      ReportOf[CI].push_back(std::nullopt);
      const KernelReport *Kernel = nullptr;
      for (const KernelReport &K : Base)
        if (!L.MangledName.empty() && K.MangledName == L.MangledName)
          Kernel = &K;
      if (!Kernel) {
        TL.NoReportReason = L.MangledName.empty()
                                ? "the kernel launched is not known"
                                : "'" + L.MangledName + "' is not among the file's kernels";
        C.Launches.push_back(std::move(TL));
        continue;
      }
      TL.Kernel = Kernel->Name;
      for (const KernelParam &P : Kernel->Params)
        TL.ParamNames.push_back(P.Name);
      LaunchSite Site;
      Site.Loc = L.Site;
      Site.Grid = L.Grid;
      Site.Block = L.Block;
      Site.DynamicSmemBytes = L.DynamicSmemBytes;
      Site.Args = L.ScalarArgs;
      Site.Evaluated = true;
      Site.MaxDynamicSmemAttribute = L.MaxDynamicSmemAttribute;
      Site.Problems = launchConfigProblems(Site);
      TL.LaunchErrors = Site.Problems;
      KernelReport K = *Kernel;
      K.LaunchSites = {Site};
      if (!TL.LaunchErrors.empty()) {
        // Not analysed (a zero grid would divide by zero downstream); the checks report it.
        TL.NoReportReason = "the launch fails before the kernel runs";
        FailingLaunches[CI].push_back(std::move(K));
        C.Launches.push_back(std::move(TL));
        continue;
      }
      std::string Key = reportKey(L);
      if (auto It = FirstWithKey.find(Key); It != FirstWithKey.end()) {
        TL.SameReportAs = It->second;
        C.Launches.push_back(std::move(TL));
        continue;
      }
      K.Launch = launchConfigFor(L, K, HC, AO);
      std::string Distinct = Key + "|" + L.Site.File + ":" + std::to_string(L.Site.Line) + ":" +
                             std::to_string(L.Site.Column);
      for (const auto &[Name, Bytes] : K.Launch.PointerExtentBytes)
        Distinct += "|" + Name + "=" + std::to_string(Bytes);
      if (!AtLaunchIndex.count(Distinct) && AtLaunch.size() >= AO.MaxKernels) {
        // As for the file's kernels (--max-kernels): bounds the time of a launch in a long loop.
        TL.NoReportReason = "not analysed: more than " + std::to_string(AO.MaxKernels) +
                            " distinct launches (--max-kernels)";
        C.Launches.push_back(std::move(TL));
        continue;
      }
      FirstWithKey[Key] = unsigned(LI);
      auto [It, New] = AtLaunchIndex.try_emplace(Distinct, AtLaunch.size());
      if (New)
        AtLaunch.push_back(std::move(K));
      ReportOf[CI].back() = It->second;
      C.Launches.push_back(std::move(TL));
    }
    T.Configurations.push_back(std::move(C));
  }

  AnalyzerOptions FileAO = AO;
  FileAO.CompileArgs = sourceMeaningFlags(DB, TO.File);
  std::vector<KernelReport *> Pointers;
  for (KernelReport &K : AtLaunch)
    Pointers.push_back(&K);
  analyzeModule(PF.DeviceModule.get(), R.Kernels, FileAO, Pointers);
  bool ChecksRan = runChecksIsolated(R, Filter);

  for (size_t CI = 0; CI < T.Configurations.size(); ++CI) {
    TaskConfigurationReport &C = T.Configurations[CI];
    FileReport AtConfig;
    AtConfig.File = TO.File;
    AtConfig.Analysed = true;
    for (size_t LI = 0; LI < C.Launches.size(); ++LI)
      if (std::optional<size_t> I = ReportOf[CI][LI]) {
        C.Launches[LI].Report = AtLaunch[*I];
        AtConfig.Kernels.push_back(AtLaunch[*I]);
      }
    for (KernelReport &K : FailingLaunches[CI])
      AtConfig.Kernels.push_back(std::move(K));
    ChecksRan &= runChecksIsolated(AtConfig, Filter);
    C.Diagnostics = std::move(AtConfig.Diagnostics);
  }

  std::vector<FileReport> Reports;
  Reports.push_back(std::move(R));
  if (!TO.Sarif.empty() && !writeSarifFile(TO.Sarif, Reports, Filter, RO))
    return ExitInputError;
  if (TO.Json) {
    llvm::json::Value Doc = reportToJSON(Reports, RO);
    addTaskToJSON(*Doc.getAsObject(), T, RO);
    llvm::outs() << llvm::formatv("{0:2}", Doc) << "\n";
  } else {
    writeTextDiagnostics(Reports, RO, llvm::errs());
    writeTaskSummary(T, RO, llvm::outs());
  }
  // As without --task: a fault in an analysis or the checks is reported, and the exit code says
  // the file was not fully analysed.
  bool Faulted = !ChecksRan;
  for (const KernelReport &K : Reports.front().Kernels)
    Faulted |= !K.AnalysisFaults.empty();
  for (const KernelReport &K : AtLaunch)
    Faulted |= !K.AnalysisFaults.empty();
  return Faulted ? ExitInputError : ExitAnalysed;
}

} // namespace cudaperf
