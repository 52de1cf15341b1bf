//===- kernel-attributes.cpp - cudaFuncGetAttributes for every kernel of some cubins ----------===//
//
// Loads each cubin with cudaLibraryLoadFromFile and prints, for each kernel in it, what
// cudaFuncGetAttributes reports: the ground truth for the analyzer's resources (docs/accuracy.md).
//
// Usage: kernel-attributes FILE.cubin...   (CSV on stdout)
//
//===----------------------------------------------------------------------===//
#include <cuda_runtime.h>
#include <cstdio>
#include <string>
#include <vector>

int main(int Argc, char **Argv) {
  std::printf("cubin,kernel,num_regs,shared_size_bytes,local_size_bytes,const_size_bytes,max_threads_per_block\n");
  int Failures = 0;
  for (int I = 1; I < Argc; ++I) {
    cudaLibrary_t Lib;
    cudaError_t E = cudaLibraryLoadFromFile(&Lib, Argv[I], nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (E != cudaSuccess) {
      std::fprintf(stderr, "%s: %s\n", Argv[I], cudaGetErrorString(E));
      ++Failures;
      continue;
    }
    unsigned Count = 0;
    cudaLibraryGetKernelCount(&Count, Lib);
    std::vector<cudaKernel_t> Kernels(Count);
    cudaLibraryEnumerateKernels(Kernels.data(), Count, Lib);
    std::string File = Argv[I];
    File = File.substr(File.find_last_of('/') + 1);
    for (cudaKernel_t K : Kernels) {
      const char *Name = nullptr;
      cudaFuncAttributes A;
      cudaError_t E1 = cudaFuncGetName(&Name, reinterpret_cast<const void *>(K));
      cudaError_t E2 = cudaFuncGetAttributes(&A, reinterpret_cast<const void *>(K));
      if (E1 != cudaSuccess || E2 != cudaSuccess) {
        std::fprintf(stderr, "%s: %s / %s\n", File.c_str(), cudaGetErrorString(E1), cudaGetErrorString(E2));
        ++Failures;
        continue;
      }
      std::printf("%s,%s,%d,%zu,%zu,%zu,%d\n", File.c_str(), Name, A.numRegs, A.sharedSizeBytes,
                  A.localSizeBytes, A.constSizeBytes, A.maxThreadsPerBlock);
    }
    cudaLibraryUnload(Lib);
  }
  return Failures ? 1 : 0;
}
