//===- TaskWriter.cpp - What --task adds to the output (docs/json-schema.md, "--task") ----===//
#include "cudaperf/Report/Writers.h"
#include "llvm/Support/Format.h"

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace cudaperf {

namespace {

Value pointerJSON(const LaunchPointerArg &P) {
  switch (P.K) {
  case LaunchPointerArg::Kind::Argument: {
    Object O{{"argument", P.Argument}, {"offset_bytes", P.OffsetBytes}};
    if (P.ArgumentElementBytes > 0 && P.OffsetBytes % P.ArgumentElementBytes == 0)
      O["offset_elements"] = P.OffsetBytes / P.ArgumentElementBytes;
    else
      O["offset_elements"] = nullptr; // not on an element boundary of the task's dtype
    return O;
  }
  case LaunchPointerArg::Kind::Scratch: {
    Object O{{"scratch", true}, {"scratch_id", int64_t(P.ScratchId)}, {"offset_bytes", P.OffsetBytes}};
    O["bytes"] = P.ScratchBytes ? Value(*P.ScratchBytes) : Value(nullptr);
    return O;
  }
  case LaunchPointerArg::Kind::Null:
    return Object{{"null", true}};
  case LaunchPointerArg::Kind::Host:
    return Object{{"host", true}, {"what", P.Reason}};
  case LaunchPointerArg::Kind::Unknown:
    return Object{{"unknown", true}, {"reason", P.Reason}};
  }
  return nullptr;
}

Object launchJSON(const TaskLaunchReport &T, const ReportOptions &Opts) {
  const EvaluatedLaunch &L = T.Launch;
  Array Unresolved;
  for (const UnresolvedPart &U : L.Unresolved)
    Unresolved.push_back(Object{{"part", U.Part}, {"reason", U.Reason}});
  Object Scalars, Pointers;
  for (size_t I = 0; I < T.ParamNames.size(); ++I) {
    const std::string &N = T.ParamNames[I];
    const auto &S = I < L.ScalarArgs.size() ? L.ScalarArgs[I] : std::nullopt;
    Scalars[N] = S ? paramToJSON(*S) : Value(nullptr);
    if (I < L.PointerArgs.size() && L.PointerArgs[I])
      Pointers[N] = pointerJSON(*L.PointerArgs[I]);
  }
  Object O{{"index", int64_t(T.Index)},
           {"kernel", T.Kernel},
           {"mangled_name", L.MangledName},
           {"via", L.Via},
           {"site", Object{{"file", displayPath(L.Site.File, Opts.SourceRoot)},
                           {"line", L.Site.Line},
                           {"column", L.Site.Column}}},
           {"resolved", L.resolved()},
           {"unresolved", std::move(Unresolved)},
           {"grid", dimToJSON(L.Grid)},
           {"block", dimToJSON(L.Block)},
           {"dynamic_smem_bytes", L.DynamicSmemBytes ? Value(*L.DynamicSmemBytes) : Value(nullptr)},
           {"scalar_args", std::move(Scalars)},
           {"pointer_args", std::move(Pointers)}};
  if (L.MaxDynamicSmemAttribute)
    O["max_dynamic_smem_attribute"] = *L.MaxDynamicSmemAttribute;
  if (!T.LaunchErrors.empty()) {
    Array E;
    for (const std::string &S : T.LaunchErrors)
      E.push_back(S);
    O["launch_errors"] = std::move(E);
  }
  if (T.Report)
    O["report"] = kernelToJSON(*T.Report, Opts);
  else if (T.SameReportAs)
    O["same_report_as"] = int64_t(*T.SameReportAs);
  else
    O["no_report_reason"] = T.NoReportReason;
  return O;
}

} // namespace

void addTaskToJSON(Object &Document, const TaskReport &T, const ReportOptions &Opts) {
  Document["task"] = Object{{"name", T.Name},
                            {"dir", displayPath(T.Dir, Opts.SourceRoot)},
                            {"entry", T.Entry},
                            {"kind", T.Kind}};
  Array Configs;
  for (const TaskConfigurationReport &C : T.Configurations) {
    Object Values, Elements;
    for (const auto &[N, V] : C.Values)
      Values[N] = paramToJSON(V);
    for (const auto &[N, E] : C.PointerElements)
      Elements[N] = E;
    Array Launches, Diags, Notes;
    for (const TaskLaunchReport &L : C.Launches)
      Launches.push_back(launchJSON(L, Opts));
    for (const Diagnostic &D : C.Diagnostics)
      Diags.push_back(diagnosticToJSON(D, Opts));
    for (const std::string &N : C.Notes)
      Notes.push_back(N);
    Object O{{"name", C.Name},
             {"values", std::move(Values)},
             {"pointer_elements", std::move(Elements)},
             {"entry_found", C.EntryFound},
             {"launches_complete", C.LaunchesComplete},
             {"launches", std::move(Launches)},
             {"diagnostics", std::move(Diags)},
             {"notes", std::move(Notes)}};
    if (!C.Reason.empty())
      O["reason"] = C.Reason;
    Configs.push_back(std::move(O));
  }
  Document["configurations"] = std::move(Configs);
}

void writeTaskSummary(const TaskReport &T, const ReportOptions &Opts, llvm::raw_ostream &OS) {
  OS << "task " << T.Name << " (" << displayPath(T.Dir, Opts.SourceRoot) << "), entry " << T.Entry
     << "\n";
  for (const TaskConfigurationReport &C : T.Configurations) {
    OS << "configuration " << C.Name << ":";
    for (const auto &[N, V] : C.Values)
      OS << " " << N << "=" << formatParam(V);
    OS << "\n";
    if (!C.EntryFound) {
      OS << "  entry point not found: " << C.Reason << "\n";
      continue;
    }
    for (const TaskLaunchReport &L : C.Launches) {
      const EvaluatedLaunch &E = L.Launch;
      OS << "  #" << L.Index << " " << (L.Kernel.empty() ? "?" : L.Kernel) << " grid "
         << (E.Grid ? E.Grid->str() : "?") << " block " << (E.Block ? E.Block->str() : "?")
         << " smem " << (E.DynamicSmemBytes ? std::to_string(*E.DynamicSmemBytes) : "?") << " ("
         << displayPath(E.Site.File, Opts.SourceRoot) << ":" << E.Site.Line << ")\n";
      for (const UnresolvedPart &U : E.Unresolved)
        OS << "     " << U.Part << " unknown: " << U.Reason << "\n";
      for (const std::string &Err : L.LaunchErrors)
        OS << "     fails to launch: " << Err << "\n";
    }
    if (!C.LaunchesComplete)
      OS << "  (evaluation stopped: " << C.Reason << ")\n";
    for (const Diagnostic &D : C.Diagnostics)
      OS << "  " << displayPath(D.Loc.File, Opts.SourceRoot) << ":" << D.Loc.Line << ":" << D.Loc.Column
         << ": " << toString(D.Level) << ": " << D.Message << " [" << D.Check << "]\n";
    for (const std::string &N : C.Notes)
      OS << "  note: " << N << "\n";
  }
}

} // namespace cudaperf
