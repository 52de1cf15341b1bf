#include "cudaperf/Tool/Driver.h"
#include "llvm/Support/InitLLVM.h"

int main(int argc, const char **argv) {
  llvm::InitLLVM X(argc, argv);
  return cudaperf::runAnalyzeTool(argc, argv);
}
