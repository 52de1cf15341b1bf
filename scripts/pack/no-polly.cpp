// Linked only into the static analyzer that scripts/pack-analyzer.sh makes for the GPU host. Debian's
// static clangCodeGen / LLVMExtensions refer to Polly's plugin entry point, which Debian ships only as the
// LLVMPolly.so plugin (no archive); the analyzer never runs an LLVM optimization pipeline, so an empty
// plugin that registers nothing resolves the reference without changing what the analyzer does.
#include "llvm/Plugins/PassPlugin.h" // llvm/Passes/PassPlugin.h until LLVM 21

llvm::PassPluginLibraryInfo getPollyPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "no-polly", "0", [](llvm::PassBuilder &) {}};
}
