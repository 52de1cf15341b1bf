//===- CudaFrontend.cpp - One device-mode parse per file ------------------===//
//
// Each file is compiled by clang in CUDA device mode (--cuda-device-only) for the target arch. A
// single frontend action both generates the device LLVM IR (at -O3, with line tables so each
// instruction maps to a source line and column) and walks the AST for kernels and launch sites.
//
// Headers: with a toolkit, its headers as they are (clang 22's CUDA wrapper accepts CUDA 13's);
// without one, cudaperf's built-in declarations. Both, with the nvcc compatibility header, are
// compiled into the binary and served from an in-memory file system. Libdevice is never linked
// (-nocudalib): math functions stay visible as calls (__nv_expf ...), which later analyses count.
//
//===----------------------------------------------------------------------===//
#include "EmbeddedHeaders.h"
#include "KernelCollector.h"
#include "cudaperf/Frontend/SourceRewrites.h"
#include "cudaperf/Frontend/Frontend.h"
#include "cudaperf/Support/Toolkit.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/VirtualFileSystem.h"

using namespace clang;

namespace cudaperf {

namespace {

/// The SDK version for clang's launch lowering (__cudaPushCallConfiguration, CUDA >= 9.2): clang 22's
/// driver finds no version in the pip-style CUDA 13 layout, and with -nocudalib it would otherwise
/// pick the pre-9.2 launch API. CUDA 13 itself is newer than clang 22 knows (12.9), hence
/// -Wno-unknown-cuda-version below.
constexpr const char *AssumedSdkVersion = "12.5";

class CollectingCodeGenAction : public EmitLLVMOnlyAction {
public:
  CollectingCodeGenAction(llvm::LLVMContext *Ctx, std::vector<KernelReport> &Kernels,
                          const HostEntryRequest *Entry, std::vector<HostEvaluation> &Evaluations)
      : EmitLLVMOnlyAction(Ctx), Kernels(Kernels), Entry(Entry), Evaluations(Evaluations) {}

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef InFile) override {
    // The collector reads the AST before code generation, which may free it.
    std::vector<std::unique_ptr<ASTConsumer>> Consumers;
    Consumers.push_back(std::make_unique<KernelCollector>(Kernels, Entry, Evaluations));
    Consumers.push_back(EmitLLVMOnlyAction::CreateASTConsumer(CI, InFile));
    if (!Consumers.back())
      return nullptr;
    return std::make_unique<MultiplexConsumer>(std::move(Consumers));
  }

private:
  std::vector<KernelReport> &Kernels;
  const HostEntryRequest *Entry;
  std::vector<HostEvaluation> &Evaluations;
};

/// Runs CollectingCodeGenAction on each compile command ClangTool hands it.
class DeviceParseAction : public tooling::ToolAction {
public:
  DeviceParseAction(std::vector<ParsedFile> &Results, const HostEntryRequest *Entry)
      : Results(Results), Entry(Entry) {}

  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation, FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHOps,
                     DiagnosticConsumer *DiagConsumer) override {
    ParsedFile PF;
    const auto &Inputs = Invocation->getFrontendOpts().Inputs;
    if (!Inputs.empty())
      PF.File = Inputs.front().getFile().str();
    PF.Context = std::make_unique<llvm::LLVMContext>();

    Invocation->getCodeGenOpts().ClearASTBeforeBackend = false;
    // As clang 22's tooling::FrontendActionFactory::runInvocation: the instance takes the
    // invocation at construction and the tool's file system with its file manager.
    CompilerInstance Compiler(std::move(Invocation), std::move(PCHOps));
    Compiler.setVirtualFileSystem(Files->getVirtualFileSystemPtr());
    Compiler.setFileManager(Files);
    Compiler.createDiagnostics(DiagConsumer, /*ShouldOwnClient=*/false);
    if (!Compiler.hasDiagnostics())
      return false;
    Compiler.createSourceManager();
    CollectingCodeGenAction Action(PF.Context.get(), PF.Kernels, Entry, PF.HostEvaluations);
    bool Ok = Compiler.ExecuteAction(Action) && !Compiler.getDiagnostics().hasErrorOccurred();
    Files->clearStatCache();
    if (Ok)
      PF.DeviceModule = Action.takeModule();
    PF.Success = Ok && PF.DeviceModule != nullptr;
    if (!PF.Success) {
      PF.Kernels.clear();
      PF.HostEvaluations.clear();
    }
    bool Success = PF.Success;
    Results.push_back(std::move(PF));
    return Success;
  }

private:
  std::vector<ParsedFile> &Results;
  const HostEntryRequest *Entry;
};

/// The toolkit's version as nvcc reports it in __CUDACC_VER_MAJOR__/MINOR/BUILD: major and minor
/// from CUDA_VERSION in cuda.h, the build from nvcc's package (a pip-style dist-info directory
/// nvidia_cuda_nvcc-13.0.88.dist-info, or version.json), 0 when neither says.
struct ToolkitVersion {
  int Major = 0, Minor = 0, Build = 0;
};

std::optional<ToolkitVersion> toolkitVersion(StringRef CudaPath) {
  auto Header = llvm::MemoryBuffer::getFile(CudaPath + "/include/cuda.h");
  if (!Header)
    return std::nullopt;
  StringRef Text = (*Header)->getBuffer();
  size_t At = Text.find("#define CUDA_VERSION ");
  if (At == StringRef::npos)
    return std::nullopt;
  int Version = 0;
  if (Text.substr(At + 21).take_while(llvm::isDigit).getAsInteger(10, Version) || Version <= 0)
    return std::nullopt;
  ToolkitVersion V{Version / 1000, Version % 1000 / 10, 0};
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(CudaPath + "/dist-info", EC), End; It != End && !EC;
       It.increment(EC)) {
    StringRef Name = llvm::sys::path::filename(It->path());
    if (!Name.consume_front("nvidia_cuda_nvcc-") || !Name.consume_back(".dist-info"))
      continue;
    llvm::SmallVector<StringRef, 3> Parts;
    Name.split(Parts, '.');
    if (Parts.size() == 3)
      Parts[2].getAsInteger(10, V.Build);
  }
  if (auto Json = llvm::MemoryBuffer::getFile(CudaPath + "/version.json"); Json && !V.Build) {
    // "cuda_nvcc" : { "name" : ..., "version" : "12.4.131" }
    StringRef J = (*Json)->getBuffer();
    size_t N = J.find("\"cuda_nvcc\"");
    size_t Ver = N == StringRef::npos ? N : J.find("\"version\"", N);
    if (Ver != StringRef::npos) {
      StringRef Rest = J.substr(Ver + 9).ltrim(" :\t\"");
      llvm::SmallVector<StringRef, 3> Parts;
      Rest.take_until([](char C) { return C == '"'; }).split(Parts, '.');
      if (Parts.size() == 3)
        Parts[2].getAsInteger(10, V.Build);
    }
  }
  return V;
}

/// gcc's OpenMP header: nvcc hands -fopenmp to the host compiler, whose omp.h is on its own path;
/// clang has none unless LLVM's OpenMP runtime is installed.
std::string findGccOpenMPHeader() {
  std::string Best;
  std::error_code EC;
  for (StringRef Root : {"/usr/lib/gcc/x86_64-linux-gnu", "/usr/lib/gcc/aarch64-linux-gnu",
                         "/usr/lib/gcc/x86_64-redhat-linux", "/usr/lib64/gcc/x86_64-suse-linux"}) {
    for (llvm::sys::fs::directory_iterator It(Root, EC), End; It != End && !EC; It.increment(EC)) {
      std::string Candidate = It->path() + "/include/omp.h";
      if (!llvm::sys::fs::exists(Candidate))
        continue;
      // The highest gcc version (directories are named by it).
      int Version = 0, BestVersion = 0;
      llvm::sys::path::filename(It->path()).take_while(llvm::isDigit).getAsInteger(10, Version);
      if (!Best.empty())
        llvm::sys::path::filename(llvm::sys::path::parent_path(llvm::sys::path::parent_path(Best)))
            .take_while(llvm::isDigit)
            .getAsInteger(10, BestVersion);
      if (Best.empty() || Version > BestVersion)
        Best = Candidate;
    }
  }
  return Best;
}

/// -fopenmp (also given as -Xcompiler -fopenmp) means OpenMP in the host compiler to nvcc; for the
/// device parse it only has to make <omp.h> available: the flag is dropped (clang's OpenMP mode
/// would change how the file is compiled) and the header directory added.
tooling::ArgumentsAdjuster openMPAdjuster(std::string HeaderDir) {
  return [HeaderDir](const tooling::CommandLineArguments &Args, StringRef) {
    tooling::CommandLineArguments Out;
    bool OpenMP = false;
    for (const std::string &A : Args) {
      if (A == "-fopenmp" || StringRef(A).starts_with("-fopenmp=") || A == "-qopenmp" ||
          A == "-fopenmp-simd") {
        OpenMP = true;
        continue;
      }
      Out.push_back(A);
    }
    if (OpenMP && !HeaderDir.empty()) {
      Out.push_back("-isystem");
      Out.push_back(HeaderDir);
    }
    return Out;
  };
}

} // namespace

std::string resolveCudaPath(const FrontendOptions &Opts) {
  if (Opts.Headers == HeaderMode::Builtin)
    return "";
  if (!Opts.CudaPath.empty())
    return Opts.CudaPath; // explicit: used as given (SDK mode reports clang's error if wrong)
  // $CUDA_PATH, $CUDA_HOME, the toolkit found at build time, /usr/local/cuda: the first with headers.
  return support::findToolkitWithHeaders(support::toolkitRoots("", {CUDAPERF_DEFAULT_CUDA_PATH}));
}

std::vector<ParsedFile> parseFiles(const tooling::CompilationDatabase &DB,
                                   const std::vector<std::string> &Files,
                                   const FrontendOptions &Opts) {
  std::string CudaPath = resolveCudaPath(Opts);
  bool UseSdk = !CudaPath.empty();
  std::string Root = EmbeddedHeaderRoot.str();
  std::string ResourceDir = Opts.ResourceDir.empty() ? CUDAPERF_DEFAULT_RESOURCE_DIR : Opts.ResourceDir;

  // The embedded headers live in memory, overlaid on the real file system; so does gcc's omp.h,
  // alone in its directory (gcc's other headers would shadow clang's).
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> Memory(new llvm::vfs::InMemoryFileSystem);
  for (const EmbeddedHeader &H : embeddedHeaders())
    Memory->addFile(Root + "/" + H.Path, 0, llvm::MemoryBuffer::getMemBuffer(H.Contents, H.Path));
  std::string OpenMPDir;
  if (std::string Omp = findGccOpenMPHeader(); !Omp.empty())
    if (auto Buf = llvm::MemoryBuffer::getFile(Omp)) {
      OpenMPDir = Root + "/openmp";
      // gcc 11+ writes __attribute__((__malloc__ (deallocator))), which clang does not take.
      std::string Text = "#pragma push_macro(\"__malloc__\")\n#define __malloc__(...) __malloc__\n" +
                         (*Buf)->getBuffer().str() + "\n#pragma pop_macro(\"__malloc__\")\n";
      Memory->addFile(OpenMPDir + "/omp.h", 0, llvm::MemoryBuffer::getMemBufferCopy(Text, Omp));
    }
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> Overlay(
      new llvm::vfs::OverlayFileSystem(llvm::vfs::getRealFileSystem()));
  Overlay->pushOverlay(Memory);
  // The user's files are read through the nvcc-syntax rewrites (SourceRewrites.h).
  auto Sources = createNvccSourceFileSystem(
      Overlay, {Root + "/", ResourceDir + "/", CudaPath.empty() ? "" : CudaPath + "/", "/usr/include/",
                "/usr/lib/", "/usr/local/cuda"});
  tooling::ClangTool Tool(DB, Files, std::make_shared<PCHContainerOperations>(), Sources);

  Tool.clearArgumentsAdjusters();
  Tool.appendArgumentsAdjuster(
      [](const tooling::CommandLineArguments &Args, StringRef) { return translateNvccArgs(Args); });
  Tool.appendArgumentsAdjuster(openMPAdjuster(OpenMPDir));
  Tool.appendArgumentsAdjuster(tooling::getClangStripOutputAdjuster());
  Tool.appendArgumentsAdjuster(tooling::getClangStripDependencyFileAdjuster());
  // Every input is CUDA, whatever its extension.
  Tool.appendArgumentsAdjuster(
      tooling::getInsertArgumentAdjuster({"-x", "cuda"}, tooling::ArgumentInsertPosition::BEGIN));

  std::vector<std::string> Extra = {
      "--cuda-device-only",
      "--cuda-gpu-arch=" + Opts.Arch,
      "-nocudalib",
      "-Xclang",
      std::string("-target-sdk-version=") + AssumedSdkVersion,
      "-Wno-unknown-cuda-version",
      "-w", // clang's own warnings are not cudaperf's findings; errors still show
      // What nvcc accepts (with a warning at most) and clang makes an error by default: `register`
      // in C++17, narrowing conversions in braced initializers (`int v[2] = {0.0, y};`).
      "-Wno-register",
      "-Wno-c++11-narrowing",
      Opts.OptLevel,
      "-gline-tables-only",
      // LLVM 22's SLP vectorizer packs a thread's scalar index arithmetic and bounds checks into
      // vectors (four icmp as <4 x i1>, bitcast to i4), which the per-lane evaluator cannot follow:
      // a guarded tile load (corpus conv2d_5x5_tiled) then counted every lane as executing and its
      // DRAM estimate rose 5x. Each thread's code stays scalar, as the analyses model it.
      "-fno-slp-vectorize",
      "-resource-dir=" + ResourceDir,
  };
  // nvcc defines the list of virtual architectures it compiles for (sm_90 -> 900); CCCL puts it in the
  // name of Thrust's and CUB's inline namespace, so without it their kernels' mangled names differ from
  // nvcc's and the register lookup misses them.
  {
    std::string Digits;
    for (char C : llvm::StringRef(Opts.Arch).drop_front(llvm::StringRef(Opts.Arch).starts_with("sm_") ? 3 : 0))
      if (C >= '0' && C <= '9') Digits += C;
      else break;
    if (!Digits.empty()) Extra.push_back("-D__CUDA_ARCH_LIST__=" + Digits + "0");
  }
  if (UseSdk) {
    Extra.push_back("--cuda-path=" + CudaPath);
    // nvcc's own macros, consistent with the toolkit (headers and user code test them).
    Extra.push_back("-D__NVCC__=1");
    if (auto V = toolkitVersion(CudaPath)) {
      Extra.push_back("-D__CUDACC_VER_MAJOR__=" + std::to_string(V->Major));
      Extra.push_back("-D__CUDACC_VER_MINOR__=" + std::to_string(V->Minor));
      Extra.push_back("-D__CUDACC_VER_BUILD__=" + std::to_string(V->Build));
    }
    // CUDA 13 keeps libcu++/CUB/Thrust (cuda/std/..., used by cooperative_groups.h) under
    // include/cccl, which nvcc adds to the search path itself.
    if (llvm::sys::fs::is_directory(CudaPath + "/include/cccl")) {
      Extra.push_back("-isystem");
      Extra.push_back(CudaPath + "/include/cccl");
    }
  } else {
    Extra.push_back("-nocudainc");
    Extra.push_back("-isystem");
    Extra.push_back(Root + "/builtin");
    Extra.push_back("-include");
    Extra.push_back("cudaperf_cuda_builtin.h");
  }
  Extra.push_back("-isystem");
  Extra.push_back(Root + "/common");
  Extra.push_back("-include");
  Extra.push_back("cudaperf_nvcc_compat.h");
  Extra.insert(Extra.end(), Opts.ExtraArgs.begin(), Opts.ExtraArgs.end());
  Tool.appendArgumentsAdjuster(
      tooling::getInsertArgumentAdjuster(Extra, tooling::ArgumentInsertPosition::END));

  std::vector<ParsedFile> Results;
  DeviceParseAction Action(Results, Opts.Entry);
  Tool.run(&Action);
  for (ParsedFile &PF : Results)
    PF.HeaderModeUsed = UseSdk ? "sdk" : "builtin";
  return Results;
}

} // namespace cudaperf
