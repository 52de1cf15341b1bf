//===- SARIFWriter.cpp - SARIF 2.1.0 ---------------------------------------===//
//
// One run with the tool's rules table (one rule per registered check; ruleId = check name) and one
// result per diagnostic. Artifact URIs are relative to the source root, given as
// originalUriBaseIds.SRCROOT.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Checks/Check.h"
#include "cudaperf/Report/Writers.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace cudaperf {

namespace {
const char *sarifLevel(Severity S) {
  switch (S) {
  case Severity::Note: return "note";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  }
  return "warning";
}

std::string fileUri(std::string Path) {
  std::string Out = "file://";
  for (char C : Path) {
    if (C == ' ')
      Out += "%20";
    else
      Out += C;
  }
  if (!Out.empty() && Out.back() != '/')
    Out += '/';
  return Out;
}
} // namespace

Value reportToSARIF(const std::vector<FileReport> &Reports, const std::vector<const CheckInfo *> &Rules,
                    const ReportOptions &Opts) {
  llvm::SmallString<256> Root(Opts.SourceRoot);
  if (Root.empty())
    llvm::sys::fs::current_path(Root);
  llvm::sys::fs::make_absolute(Root);

  Array RuleList;
  llvm::StringMap<size_t> RuleIndex;
  for (const CheckInfo *C : Rules) {
    RuleIndex[C->Name] = RuleList.size();
    RuleList.push_back(Object{
        {"id", C->Name},
        {"name", C->Name},
        {"shortDescription", Object{{"text", C->Summary}}},
        {"fullDescription", Object{{"text", C->Description}}},
        {"defaultConfiguration", Object{{"level", sarifLevel(C->DefaultSeverity)}}},
        {"helpUri", "docs/checks/" + C->Name + ".md"}});
  }

  Array Results, Artifacts;
  llvm::StringMap<size_t> ArtifactIndex;
  auto artifact = [&](const std::string &File) -> std::pair<std::string, size_t> {
    std::string Rel = displayPath(File, Root.str().str());
    auto It = ArtifactIndex.find(Rel);
    if (It != ArtifactIndex.end())
      return {Rel, It->second};
    size_t I = Artifacts.size();
    ArtifactIndex[Rel] = I;
    Object Loc{{"uri", Rel}};
    if (!llvm::sys::path::is_absolute(Rel))
      Loc["uriBaseId"] = "SRCROOT";
    Artifacts.push_back(Object{{"location", std::move(Loc)}});
    return {Rel, I};
  };
  for (const FileReport &R : Reports) {
    artifact(R.File);
    for (const Diagnostic &D : R.Diagnostics) {
      auto [Rel, Idx] = artifact(D.Loc.File.empty() ? R.File : D.Loc.File);
      Object ArtLoc{{"uri", Rel}, {"index", static_cast<int64_t>(Idx)}};
      if (!llvm::sys::path::is_absolute(Rel))
        ArtLoc["uriBaseId"] = "SRCROOT";
      Object Region{{"startLine", std::max(1u, D.Loc.Line)}};
      if (D.Loc.Column)
        Region["startColumn"] = D.Loc.Column;
      Object Result{{"ruleId", D.Check},
                    {"level", sarifLevel(D.Level)},
                    {"message", Object{{"text", D.Message}}},
                    {"locations", Array{Object{{"physicalLocation",
                                               Object{{"artifactLocation", std::move(ArtLoc)},
                                                      {"region", std::move(Region)}}}}}}};
      auto RI = RuleIndex.find(D.Check);
      if (RI != RuleIndex.end())
        Result["ruleIndex"] = static_cast<int64_t>(RI->second);
      Object Props;
      if (!D.Kernel.empty() || D.Occurrences > 1)
        Props["kernel"] = D.Kernel;
      addFindingCoverage(D, Props);
      addEstimatedSaving(D, Props);
      if (!Props.empty())
        Result["properties"] = std::move(Props);
      Results.push_back(std::move(Result));
    }
  }

  Object Driver{{"name", "cudaperf-analyze"},
                {"version", toolVersion()},
                {"semanticVersion", toolVersion()},
                {"informationUri", "docs/architecture.md"},
                {"rules", std::move(RuleList)}};
  Object Run{{"tool", Object{{"driver", std::move(Driver)}}},
             {"originalUriBaseIds", Object{{"SRCROOT", Object{{"uri", fileUri(Root.str().str())}}}}},
             {"artifacts", std::move(Artifacts)},
             {"results", std::move(Results)},
             {"properties", Object{{"arch", Opts.Arch}}}};
  return Object{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                {"version", "2.1.0"},
                {"runs", Array{std::move(Run)}}};
}

} // namespace cudaperf
