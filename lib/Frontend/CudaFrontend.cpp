//===- CudaFrontend.cpp - One device-mode parse per file ------------------===//
//
// Each file is compiled by clang in CUDA device mode (--cuda-device-only) for the target arch. A
// single frontend action both generates the device LLVM IR (at -O3, with line tables so each
// instruction maps to a source line and column) and walks the AST for kernels and launch sites.
//
// Headers: with a toolkit, its headers plus cudaperf's compatibility headers (CUDA 13 removed a
// header that clang 19 includes); without one, cudaperf's built-in declarations. Both sets are
// compiled into the binary and served from an in-memory file system. Libdevice is never linked
// (-nocudalib): math functions stay visible as calls (__nv_expf ...), which later analyses count.
//
//===----------------------------------------------------------------------===//
#include "EmbeddedHeaders.h"
#include "KernelCollector.h"
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

/// clang 19 accepts the CUDA 13 headers once given this SDK version for its launch lowering; with
/// -nocudalib the driver would otherwise pick the pre-9.2 launch API.
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
    CompilerInstance Compiler(std::move(PCHOps));
    Compiler.setInvocation(std::move(Invocation));
    Compiler.setFileManager(Files);
    Compiler.createDiagnostics(DiagConsumer, /*ShouldOwnClient=*/false);
    if (!Compiler.hasDiagnostics())
      return false;
    Compiler.createSourceManager(*Files);
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

  // The embedded headers live in memory, overlaid on the real file system.
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> Memory(new llvm::vfs::InMemoryFileSystem);
  for (const EmbeddedHeader &H : embeddedHeaders())
    Memory->addFile(Root + "/" + H.Path, 0, llvm::MemoryBuffer::getMemBuffer(H.Contents, H.Path));
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> Overlay(
      new llvm::vfs::OverlayFileSystem(llvm::vfs::getRealFileSystem()));
  Overlay->pushOverlay(Memory);
  tooling::ClangTool Tool(DB, Files, std::make_shared<PCHContainerOperations>(), Overlay);

  Tool.clearArgumentsAdjusters();
  Tool.appendArgumentsAdjuster(
      [](const tooling::CommandLineArguments &Args, StringRef) { return translateNvccArgs(Args); });
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
      Opts.OptLevel,
      "-gline-tables-only",
      "-resource-dir=" + ResourceDir,
  };
  if (UseSdk) {
    Extra.push_back("--cuda-path=" + CudaPath);
    Extra.push_back("-isystem");
    Extra.push_back(Root + "/compat");
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
