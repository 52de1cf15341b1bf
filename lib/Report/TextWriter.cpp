//===- TextWriter.cpp - clang-style diagnostics and a per-kernel summary ---===//
#include "cudaperf/Report/Writers.h"
#include "llvm/Support/Format.h"
#include <algorithm>
#include <map>

namespace cudaperf {

namespace {
void writeScalar(const llvm::json::Value &V, llvm::raw_ostream &OS) {
  if (auto I = V.getAsInteger())
    OS << *I;
  else if (auto D = V.getAsNumber())
    OS << llvm::format("%.3g", *D);
  else if (auto S = V.getAsString())
    OS << *S;
  else if (auto B = V.getAsBoolean())
    OS << (*B ? "true" : "false");
  else if (V.kind() == llvm::json::Value::Null)
    OS << "?";
}

/// "name: k1=v1 k2=v2" with the scalar members of an analysis section, in key order.
void writeSection(llvm::StringRef Name, const llvm::json::Object &O, llvm::raw_ostream &OS) {
  std::vector<std::string> Keys;
  for (const auto &KV : O) {
    auto K = KV.second.kind();
    if (K != llvm::json::Value::Object && K != llvm::json::Value::Array)
      Keys.push_back(KV.first.str());
  }
  if (Keys.empty())
    return;
  std::sort(Keys.begin(), Keys.end());
  OS << "  " << Name << ":";
  for (const std::string &K : Keys) {
    OS << " " << K << "=";
    writeScalar(*O.get(K), OS);
  }
  OS << "\n";
}
} // namespace

void writeTextDiagnostics(const std::vector<FileReport> &Reports, const ReportOptions &Opts,
                          llvm::raw_ostream &OS) {
  for (const FileReport &R : Reports)
    for (const Diagnostic &D : R.Diagnostics) {
      OS << displayPath(D.Loc.File.empty() ? R.File : D.Loc.File, Opts.SourceRoot) << ":"
         << D.Loc.Line << ":" << D.Loc.Column << ": " << toString(D.Level) << ": " << D.Message
         << " [" << D.Check << "]\n";
    }
}

std::string formatParam(const ParamValue &V) {
  if (const auto *I = std::get_if<int64_t>(&V))
    return std::to_string(*I);
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::format("%g", std::get<double>(V));
  return OS.str();
}

void writeTextSummary(const std::vector<FileReport> &Reports, const ReportOptions &Opts,
                      llvm::raw_ostream &OS) {
  for (const FileReport &R : Reports) {
    if (!R.Analysed)
      continue;
    std::string File = displayPath(R.File, Opts.SourceRoot);
    if (R.Kernels.empty()) {
      OS << File << ": no __global__ kernels\n";
      continue;
    }
    for (const KernelReport &K : R.Kernels) {
      OS << displayPath(K.Loc.File, Opts.SourceRoot) << ":" << K.Loc.Line << ":" << K.Loc.Column
         << ": kernel " << K.Name << "(";
      for (size_t I = 0; I < K.Params.size(); ++I)
        OS << (I ? ", " : "") << K.Params[I].Type
           << (llvm::StringRef(K.Params[I].Type).ends_with("*") ? "" : " ") << K.Params[I].Name;
      OS << ")\n";
      const LaunchConfig &L = K.Launch;
      OS << "  launch: grid " << (L.Grid ? L.Grid->str() : std::string("?")) << ", block "
         << L.Block.str() << ", dynamic smem " << L.DynamicSmemBytes << " B ("
         << toString(L.Origin) << ")";
      if (!L.Params.empty()) {
        OS << ", params";
        for (const auto &[Name, V] : L.Params)
          OS << " " << Name << "=" << formatParam(V);
      }
      OS << "\n";
      if (K.LaunchSites.size() > 0) {
        size_t Constant = std::count_if(K.LaunchSites.begin(), K.LaunchSites.end(),
                                        [](const LaunchSite &S) { return S.isConstant(); });
        OS << "  launch sites: " << K.LaunchSites.size() << " (" << Constant << " constant)\n";
      }
      for (const SharedArrayDecl &S : K.SharedArrays) {
        OS << "  __shared__ " << S.ElementType << " " << S.Name;
        for (uint64_t D : S.Dims)
          OS << "[" << (D ? std::to_string(D) : std::string()) << "]";
        OS << (S.IsDynamic ? " (dynamic)" : " (" + std::to_string(S.Bytes) + " B)") << "\n";
      }
      // Unrolled iterations and inlined copies of one access print alike: one line, counted.
      std::vector<std::string> Lines;
      std::map<std::string, unsigned> Copies;
      for (const MemoryAccess &A : K.Accesses) {
        std::string Line;
        llvm::raw_string_ostream LS(Line);
        LS << "  line " << A.Loc.Line << ":" << A.Loc.Column << " " << A.Op << " " << A.Space
           << " " << A.Bytes << " B";
        if (!A.Pattern.empty())
          LS << " " << A.Pattern;
        if (A.SectorsPerRequest)
          LS << llvm::format(", %.2f sectors/request", *A.SectorsPerRequest);
        if (A.BankConflictWays)
          LS << llvm::format(", %.2f wavefronts/request", *A.BankConflictWays);
        if (Copies[Line]++ == 0)
          Lines.push_back(Line);
      }
      for (const std::string &Line : Lines) {
        OS << Line;
        if (unsigned N = Copies[Line]; N > 1)
          OS << " (x" << N << ": unrolled or inlined copies)";
        OS << "\n";
      }
      writeSection("sync", sectionToJson(K.Sync), OS);
      writeSection("resources", sectionToJson(K.Resources), OS);
      writeSection("occupancy", sectionToJson(K.Occupancy), OS);
      writeSection("work", sectionToJson(K.Work), OS);
      for (const std::string &N : K.Notes)
        OS << "  note: " << N << "\n";
    }
  }
}

} // namespace cudaperf
