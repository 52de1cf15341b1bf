//===- JSONWriter.cpp - Schema v1 (docs/json-schema.md) -------------------===//
#include "cudaperf/Report/Writers.h"
#include <cmath>

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace cudaperf {

Value dimToJSON(const std::optional<Dim3> &D) {
  if (!D)
    return nullptr;
  return Array{D->X, D->Y, D->Z};
}

Value paramToJSON(const ParamValue &V) {
  if (const auto *I = std::get_if<int64_t>(&V))
    return *I;
  return std::get<double>(V);
}

namespace {

template <typename T> Value optToJSON(const std::optional<T> &V) {
  if (!V)
    return nullptr;
  return *V;
}

Object accessToJSON(const MemoryAccess &A, const ReportOptions &Opts) {
  Object O = A.toJson();
  if (!A.Loc.File.empty())
    O["file"] = displayPath(A.Loc.File, Opts.SourceRoot);
  return O;
}
} // namespace

void addFindingCoverage(const Diagnostic &D, Object &Out) {
  if (D.Occurrences <= 1)
    return;
  Array Ks;
  for (const std::string &K : D.Kernels)
    Ks.push_back(K);
  Out["kernels"] = std::move(Ks);
  Out["occurrences"] = static_cast<int64_t>(D.Occurrences);
}

void addEstimatedSaving(const Diagnostic &D, Object &Out) {
  if (D.EstimatedSavingUs)
    Out["estimated_saving_us"] = std::round(*D.EstimatedSavingUs * 1000) / 1000;
}

Value kernelToJSON(const KernelReport &K, const ReportOptions &Opts) {
  Object Launch{{"grid", dimToJSON(K.Launch.Grid)},
                {"block", dimToJSON(K.Launch.Block)},
                {"dynamic_smem_bytes", K.Launch.DynamicSmemBytes},
                {"origin", toString(K.Launch.Origin)}};
  Object Params;
  for (const auto &[Name, V] : K.Launch.Params)
    Params[Name] = paramToJSON(V);
  Launch["params"] = std::move(Params);
  if (!K.Launch.PointerExtentBytes.empty()) {
    Object Extents;
    for (const auto &[Name, Bytes] : K.Launch.PointerExtentBytes)
      Extents[Name] = Bytes;
    Launch["pointer_extent_bytes"] = std::move(Extents);
  }

  Array Sites;
  for (const LaunchSite &S : K.LaunchSites) {
    Array Args;
    for (const auto &A : S.Args)
      Args.push_back(A ? paramToJSON(*A) : Value(nullptr));
    Object Site{{"file", displayPath(S.Loc.File, Opts.SourceRoot)},
                {"line", S.Loc.Line},
                {"column", S.Loc.Column},
                {"grid", dimToJSON(S.Grid)},
                {"block", dimToJSON(S.Block)},
                {"dynamic_smem_bytes", optToJSON(S.DynamicSmemBytes)},
                {"constant", S.isConstant()},
                {"scalar_args", std::move(Args)}};
    if (!S.Problems.empty()) {
      Array Problems;
      for (const std::string &P : S.Problems)
        Problems.push_back(P);
      Site["problems"] = std::move(Problems);
    }
    if (S.Evaluated) {
      Site["evaluated"] = true;
      if (S.MaxDynamicSmemAttribute)
        Site["max_dynamic_smem_attribute"] = *S.MaxDynamicSmemAttribute;
    }
    Sites.push_back(std::move(Site));
  }

  Array ParamList;
  for (const KernelParam &P : K.Params) {
    Object O{{"name", P.Name}, {"type", P.Type}};
    if (P.IsPointer) {
      O["pointee"] = P.PointeeType;
      O["pointee_bytes"] = P.PointeeBytes;
      O["const"] = P.PointeeIsConst;
    }
    ParamList.push_back(std::move(O));
  }

  Array Shared;
  for (const SharedArrayDecl &S : K.SharedArrays) {
    Array Dims;
    for (uint64_t D : S.Dims)
      Dims.push_back(D);
    Shared.push_back(Object{{"name", S.Name},
                            {"element_type", S.ElementType},
                            {"element_bytes", S.ElementBytes},
                            {"dims", std::move(Dims)},
                            {"bytes", S.Bytes},
                            {"dynamic", S.IsDynamic},
                            {"line", S.Loc.Line}});
  }

  Array Accesses;
  for (const MemoryAccess &A : K.Accesses)
    Accesses.push_back(accessToJSON(A, Opts));

  Object O{{"name", K.Name},
           {"mangled_name", K.MangledName},
           {"file", displayPath(K.Loc.File, Opts.SourceRoot)},
           {"line", K.Loc.Line},
           {"column", K.Loc.Column},
           {"parameters", std::move(ParamList)},
           {"launch_bounds",
            K.LaunchBoundsMaxThreads
                ? Value(Object{{"max_threads", *K.LaunchBoundsMaxThreads},
                               {"min_blocks", optToJSON(K.LaunchBoundsMinBlocks)}})
                : Value(nullptr)},
           {"shared_arrays", std::move(Shared)},
           {"launch", std::move(Launch)},
           {"launch_sites", std::move(Sites)},
           {"accesses", std::move(Accesses)},
           {"sync", sectionToJson(K.Sync)},
           {"resources", sectionToJson(K.Resources)},
           {"occupancy", sectionToJson(K.Occupancy)},
           {"work", sectionToJson(K.Work)}};
  if (K.CoalescingEfficiency)
    O["coalescing_efficiency"] = *K.CoalescingEfficiency;
  if (!K.AnalysisFaults.empty()) {
    Array Faults;
    for (const AnalysisFault &F : K.AnalysisFaults)
      Faults.push_back(F.toJson());
    O["analysis_faults"] = std::move(Faults);
  }
  if (!K.Notes.empty()) {
    Array Notes;
    for (const std::string &N : K.Notes)
      Notes.push_back(N);
    O["notes"] = std::move(Notes);
  }
  return O;
}

Value diagnosticToJSON(const Diagnostic &D, const ReportOptions &Opts) {
  Object O{{"check", D.Check},
           {"severity", toString(D.Level)},
           {"message", D.Message},
           {"kernel", D.Kernel},
           {"file", displayPath(D.Loc.File, Opts.SourceRoot)},
           {"line", D.Loc.Line},
           {"column", D.Loc.Column}};
  addFindingCoverage(D, O);
  addEstimatedSaving(D, O);
  return O;
}

Value reportToJSON(const std::vector<FileReport> &Reports, const ReportOptions &Opts) {
  Array Kernels, Diags, Files;
  for (const FileReport &R : Reports) {
    Files.push_back(Object{{"file", displayPath(R.File, Opts.SourceRoot)},
                           {"analysed", R.Analysed},
                           {"kernels", static_cast<int64_t>(R.Kernels.size())}});
    for (const KernelReport &K : R.Kernels)
      Kernels.push_back(kernelToJSON(K, Opts));
    for (const Diagnostic &D : R.Diagnostics)
      Diags.push_back(diagnosticToJSON(D, Opts));
  }
  return Object{{"schema_version", JsonSchemaVersion},
                {"tool", Object{{"name", "cudaperf-analyze"}, {"version", toolVersion()}}},
                {"arch", Opts.Arch},
                {"files", std::move(Files)},
                {"kernels", std::move(Kernels)},
                {"diagnostics", std::move(Diags)}};
}

} // namespace cudaperf
