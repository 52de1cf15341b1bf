//===- Resources.cpp - Per-kernel registers, spills and shared memory ---------------------===//
//
// Fills KernelReport::Resources, a ResourceFacts (cudaperf/Report/KernelFacts.h; keys in
// docs/json-schema.md):
//   registers, spill_store_bytes, spill_load_bytes, local_bytes, static_smem_bytes, barriers,
//   constant_bytes, source ("nvcc" | "nvrtc" | "estimate"), compiler, cached, arch.
// Each input file is compiled once by NVIDIA's compiler (ResourceCompiler.cpp); kernels are
// matched to ptxas's report by their mangled names. The route can be forced with the environment
// variable CUDAPERF_RESOURCES=auto|nvcc|nvrtc|estimate; extra compiler flags (-I, -D, -std=...)
// come from CUDAPERF_NVCC_FLAGS until the front end passes the file's own flags on.
//
//===----------------------------------------------------------------------===//
#include "cudaperf/Analysis/AnalysisContext.h"
#include "cudaperf/Analysis/Resources.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

namespace cudaperf {

namespace {

struct FileResources {
  std::optional<ResourceReport> Report;
  std::string Error;
  std::vector<std::string> NameExpressions;
};

class ResourcesAnalysis : public KernelAnalysis {
public:
  llvm::StringRef name() const override { return "resources"; }
  bool evaluatesLanes() const override { return false; }

  void run(AnalysisContext &Ctx, llvm::Function *F, KernelReport &K) override {
    const std::string &Arch = Ctx.options().Arch;
    AnalyzerOptions Opts = Ctx.options();
    // The translation unit, not the header a kernel may be defined in: nvcc compiles only the
    // former ("nvcc fatal: Don't know what to do with 'kernel.h'").
    if (Opts.MainFile.empty())
      Opts.MainFile = Ctx.module().getSourceFileName();
    std::optional<ResourceRequest> Req = fileResourceRequest(Opts);

    const KernelResourceUsage *Found = nullptr;
    FileResources *FR = nullptr;
    if (Req) {
      FR = &compiledFile(*Req);
      Found = lookup(*FR, K);
      // A template kernel that only host code instantiates is missing from NVRTC's output until
      // it is named; compile once more with its name.
      if (!Found && FR->Report && FR->Report->Source == "nvrtc" &&
          llvm::StringRef(K.Name).contains('<')) {
        FR->NameExpressions.push_back(K.Name);
        FR->Report.reset();
        FR = &compiledFile(*Req, /*Force=*/true);
        Found = lookup(*FR, K);
      }
    }

    ResourceFacts R;
    if (Found) {
      fill(R, *Found);
      R.Source = FR->Report->Source;
      R.Compiler = FR->Report->Compiler;
      R.Cached = FR->Report->Cached;
    } else if (F) {
      fill(R, estimateResources(*F));
      R.Source = "estimate";
      if (FR && FR->Report)
        K.Notes.push_back("ptxas's report has no entry '" + K.MangledName +
                          "'; registers and shared memory are estimated from the IR");
      else if (FR)
        K.Notes.push_back("resources are estimated from the IR: " + FR->Error);
    } else {
      return;
    }
    R.Arch = Arch;
    K.Resources = std::move(R);
  }

private:
  std::map<std::string, FileResources> Files; // by path and arch

  static void fill(ResourceFacts &R, const KernelResourceUsage &U) {
    R.Registers = U.Registers;
    R.SpillStoreBytes = U.SpillStoreBytes;
    R.SpillLoadBytes = U.SpillLoadBytes;
    R.LocalBytes = U.StackFrameBytes;
    R.StaticSmemBytes = U.StaticSharedBytes;
    R.Barriers = U.Barriers;
    R.ConstantBytes = U.ConstantBytes;
  }

  FileResources &compiledFile(ResourceRequest Req, bool Force = false) {
    FileResources &FR = Files[Req.File + "\n" + Req.Arch];
    if (FR.Report || (!FR.Error.empty() && !Force))
      return FR;
    Req.NameExpressions = FR.NameExpressions;
    auto Rep = compileResources(Req);
    if (Rep) {
      FR.Report = std::move(*Rep);
      FR.Error.clear();
    } else {
      FR.Error = llvm::toString(Rep.takeError());
    }
    return FR;
  }

  /// With -rdc=true nvcc names an internal-linkage kernel `__nv_static_<N>__<N characters of
  /// module id><mangled name>` (clang: `_ZL...`); the mangled name, or \p Name when not so prefixed.
  static llvm::StringRef withoutNvStaticPrefix(llvm::StringRef Name) {
    llvm::StringRef Rest = Name;
    unsigned Length = 0;
    if (!Rest.consume_front("__nv_static_") || Rest.consumeInteger(10, Length) ||
        !Rest.consume_front("__") || Rest.size() <= Length)
      return Name;
    return Rest.drop_front(Length);
  }

  static const KernelResourceUsage *lookup(const FileResources &FR, const KernelReport &K) {
    if (!FR.Report)
      return nullptr;
    const auto &Ks = FR.Report->Kernels;
    if (auto It = Ks.find(K.MangledName); It != Ks.end())
      return &It->second;
    // clang and NVIDIA's front end mangle the same Itanium names, except where one of them adds
    // a suffix (internal linkage); match on the demangled name when exactly one entry fits.
    std::string Want = llvm::demangle(K.MangledName);
    const KernelResourceUsage *Match = nullptr;
    for (const auto &[Name, U] : Ks)
      if (llvm::demangle(withoutNvStaticPrefix(Name)) == Want) {
        if (Match)
          return nullptr;
        Match = &U;
      }
    return Match;
  }
};

std::vector<std::string> flagsFromEnvironment() {
  std::vector<std::string> Args;
  if (auto Env = llvm::sys::Process::GetEnv("CUDAPERF_NVCC_FLAGS")) {
    llvm::SmallVector<llvm::StringRef, 8> Parts;
    llvm::StringRef(*Env).split(Parts, ' ', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef P : Parts)
      Args.push_back(P.str());
  }
  return Args;
}

/// Whether the file has host code NVRTC cannot compile (it then goes to nvcc first). Read from the
/// text, so that the request is known before the file is parsed; a miss only costs a failed NVRTC
/// attempt before nvcc.
bool looksLikeHostCode(const std::string &File) {
  auto Buf = llvm::MemoryBuffer::getFile(File);
  if (!Buf)
    return false;
  llvm::StringRef Text = (*Buf)->getBuffer();
  return Text.contains("<<<") || Text.contains("main(") || Text.contains("cudaMalloc");
}

} // namespace

std::optional<ResourceRequest> fileResourceRequest(const AnalyzerOptions &Opts) {
  ResourceRoute Route = ResourceRoute::Auto;
  if (auto Env = llvm::sys::Process::GetEnv("CUDAPERF_RESOURCES"))
    Route = parseResourceRoute(*Env);
  if (Opts.EstimateResourcesOnly)
    Route = ResourceRoute::Estimate; // compiling a file of thousands of kernels takes minutes
  if (Route == ResourceRoute::Estimate || Opts.MainFile.empty())
    return std::nullopt;
  ResourceRequest Req;
  Req.File = Opts.MainFile;
  Req.Arch = Opts.Arch;
  Req.Args = Opts.CompileArgs;
  for (std::string &A : flagsFromEnvironment())
    Req.Args.push_back(std::move(A));
  Req.HasHostCode = looksLikeHostCode(Req.File);
  Req.Route = Route;
  return Req;
}

std::unique_ptr<KernelAnalysis> createResourcesAnalysis() {
  return std::make_unique<ResourcesAnalysis>();
}

} // namespace cudaperf
