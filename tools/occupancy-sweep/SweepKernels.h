// The kernels the occupancy sweep asks the driver about. Each sweep_kernels.cu variant (one per
// -maxrregcount) appends its kernels through a registration function named after the variant.
#pragma once
#include <string>
#include <vector>

struct SweepKernel {
  std::string Name;     // "heavy/r32"
  const void *Function; // for cudaFuncGetAttributes / cudaOccupancy*
  int Barriers;         // hardware barriers the kernel uses (checked against ptxas -v, see README)
};

#define SWEEP_DECLARE(variant) void registerSweepKernels_##variant(std::vector<SweepKernel> &Out);
#define SWEEP_VARIANTS(X) X(rdefault) X(r16) X(r24) X(r32) X(r40) X(r48) X(r56) X(r64) X(r72) X(r96) X(r128) X(r168)
SWEEP_VARIANTS(SWEEP_DECLARE)
