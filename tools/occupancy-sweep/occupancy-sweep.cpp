//===- occupancy-sweep.cpp - cudaperf's occupancy calculator against the driver, on a GPU ---===//
//
// For each sweep kernel (varied registers via -maxrregcount, static and dynamic shared memory,
// named barriers, __launch_bounds__) and each combination of block size, dynamic shared memory,
// carveout preference and dynamic-shared-memory opt-in, asks
// cudaOccupancyMaxActiveBlocksPerMultiprocessor and cudaperf's calculator, and writes one CSV row
// per configuration. Also checks the calculator's table row against cudaGetDeviceProperties.
//
// Usage: occupancy-sweep OUT.csv      (summary on stdout; exit 0 whatever the agreement)
//
//===----------------------------------------------------------------------===//
#include "SweepKernels.h"
#include "cudaperf/Occupancy/Occupancy.h"
#include <cuda_runtime.h>
#include <cstdio>
#include <string>
#include <vector>

using namespace cudaperf::occupancy;

namespace {

#define SWEEP_REGISTER(variant) registerSweepKernels_##variant(Kernels);

bool check(cudaError_t E, const char *What) {
  if (E == cudaSuccess)
    return true;
  std::fprintf(stderr, "%s: %s\n", What, cudaGetErrorString(E));
  return false;
}

int compareProperty(const char *Name, long long Device, long long Table) {
  std::printf("  %-32s device %-8lld table %-8lld %s\n", Name, Device, Table,
              Device == Table ? "ok" : "DIFFERENT");
  return Device == Table ? 0 : 1;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.csv\n", Argv[0]);
    return 2;
  }
  cudaDeviceProp P;
  if (!check(cudaGetDeviceProperties(&P, 0), "cudaGetDeviceProperties"))
    return 1;
  const ArchSpec *A = cudaperf::support::findGpuArch(P.major, P.minor);
  std::printf("device: %s, compute capability %d.%d, %d SMs\n", P.name, P.major, P.minor,
              P.multiProcessorCount);
  if (!A) {
    std::printf("no table row for this compute capability\n");
    return 1;
  }
  int PropertyDiffs = 0;
  PropertyDiffs += compareProperty("regsPerMultiprocessor", P.regsPerMultiprocessor, A->registersPerSM);
  PropertyDiffs += compareProperty("regsPerBlock", P.regsPerBlock, A->registersPerBlock);
  PropertyDiffs += compareProperty("maxThreadsPerMultiProcessor", P.maxThreadsPerMultiProcessor, A->maxThreadsPerSM);
  PropertyDiffs += compareProperty("maxThreadsPerBlock", P.maxThreadsPerBlock, A->maxThreadsPerBlock);
  PropertyDiffs += compareProperty("maxBlocksPerMultiProcessor", P.maxBlocksPerMultiProcessor, A->maxBlocksPerSM);
  PropertyDiffs += compareProperty("sharedMemPerMultiprocessor", P.sharedMemPerMultiprocessor, A->sharedMemPerSM);
  PropertyDiffs += compareProperty("sharedMemPerBlock", P.sharedMemPerBlock, A->sharedMemPerBlock);
  PropertyDiffs += compareProperty("sharedMemPerBlockOptin", P.sharedMemPerBlockOptin, A->sharedMemPerBlockOptin);
  PropertyDiffs += compareProperty("reservedSharedMemPerBlock", P.reservedSharedMemPerBlock, A->reservedSharedMemPerBlock);
  PropertyDiffs += compareProperty("warpSize", P.warpSize, A->warpSize);
  if (const DeviceSpec *D = cudaperf::support::defaultGpuDevice(P.major, P.minor))
    PropertyDiffs += compareProperty("multiProcessorCount (default device)", P.multiProcessorCount, D->sms);

  std::vector<SweepKernel> Kernels;
  SWEEP_VARIANTS(SWEEP_REGISTER)

  FILE *Out = std::fopen(Argv[1], "w");
  if (!Out) {
    std::perror(Argv[1]);
    return 1;
  }
  std::fprintf(Out, "cc,kernel,registers,static_smem,local_bytes,max_threads,max_dynamic_smem,barriers,"
                    "block,dynamic_smem,carveout,status,driver_blocks,calculator_blocks\n");

  const std::vector<int> Blocks = {32, 64, 96, 128, 192, 256, 288, 384, 512, 640, 768, 1000, 1024};
  const std::vector<int> AllCarveouts = {-1, 0, 10, 25, 50, 75, 100};
  const std::vector<int> FewCarveouts = {-1, 0, 50, 100};
  long Rows = 0, Compared = 0, Exact = 0, Refused = 0;
  for (const SweepKernel &SK : Kernels) {
    cudaFuncAttributes Initial;
    if (!check(cudaFuncGetAttributes(&Initial, SK.Function), SK.Name.c_str()))
      continue;
    bool SharedMemoryKernel = SK.Name.find("Smem") != std::string::npos;
    const std::vector<int> &Carveouts = SharedMemoryKernel ? AllCarveouts : FewCarveouts;
    int OptinMax = int(P.sharedMemPerBlockOptin) - int(Initial.sharedSizeBytes);
    for (bool Optin : {false, true}) {
      int MaxDynamic = Optin ? OptinMax : Initial.maxDynamicSharedSizeBytes;
      if (!check(cudaFuncSetAttribute(SK.Function, cudaFuncAttributeMaxDynamicSharedMemorySize, MaxDynamic),
                 "MaxDynamicSharedMemorySize"))
        continue;
      std::vector<int> Dynamic;
      if (!Optin)
        Dynamic = SharedMemoryKernel ? std::vector<int>{0, 1000, 6144, 20000, MaxDynamic, MaxDynamic + 1}
                                     : std::vector<int>{0, 20000};
      else
        Dynamic = SharedMemoryKernel ? std::vector<int>{60000, 100000, 150000, OptinMax, OptinMax + 1}
                                     : std::vector<int>{100000};
      for (int Carveout : Carveouts) {
        if (!check(cudaFuncSetAttribute(SK.Function, cudaFuncAttributePreferredSharedMemoryCarveout, Carveout),
                   "PreferredSharedMemoryCarveout"))
          continue;
        cudaFuncAttributes Attr;
        check(cudaFuncGetAttributes(&Attr, SK.Function), "cudaFuncGetAttributes");
        for (int Block : Blocks)
          for (int Dyn : Dynamic) {
            if (Dyn < 0)
              continue;
            int DriverBlocks = -1;
            cudaError_t Status =
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&DriverBlocks, SK.Function, Block, size_t(Dyn));
            cudaGetLastError(); // a refused configuration must not poison the next query
            KernelResources K;
            K.RegistersPerThread = Attr.numRegs;
            K.StaticSharedBytes = int(Attr.sharedSizeBytes);
            K.MaxThreadsPerBlock = Attr.maxThreadsPerBlock;
            K.MaxDynamicSharedBytes = Attr.maxDynamicSharedSizeBytes;
            K.Barriers = SK.Barriers > 0 ? SK.Barriers : 1;
            int Calc = computeOccupancy(*A, K, {Block, Dyn, Carveout}).ActiveBlocksPerSM;
            std::fprintf(Out, "%d.%d,%s,%d,%zu,%zu,%d,%d,%d,%d,%d,%d,%d,%d,%d\n", P.major, P.minor,
                         SK.Name.c_str(), Attr.numRegs, Attr.sharedSizeBytes, Attr.localSizeBytes,
                         Attr.maxThreadsPerBlock, Attr.maxDynamicSharedSizeBytes, SK.Barriers, Block, Dyn,
                         Carveout, int(Status), Status == cudaSuccess ? DriverBlocks : -1, Calc);
            ++Rows;
            if (Status != cudaSuccess) {
              ++Refused;
              continue;
            }
            ++Compared;
            if (DriverBlocks == Calc)
              ++Exact;
          }
      }
    }
    cudaFuncSetAttribute(SK.Function, cudaFuncAttributeMaxDynamicSharedMemorySize, Initial.maxDynamicSharedSizeBytes);
    cudaFuncSetAttribute(SK.Function, cudaFuncAttributePreferredSharedMemoryCarveout, -1);
  }
  std::fclose(Out);
  std::printf("kernels: %zu; configurations: %ld; driver refused: %ld; compared: %ld; exact: %ld (%.2f%%); "
              "device-property differences: %d\n",
              Kernels.size(), Rows, Refused, Compared, Exact, Compared ? 100.0 * Exact / Compared : 0.0,
              PropertyDiffs);
  return 0;
}
