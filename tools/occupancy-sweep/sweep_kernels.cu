// Compiled once per register cap (-maxrregcount, CMakeLists.txt) with SWEEP_VARIANT naming it.
// The kernels are never launched: the sweep only asks the driver for their attributes and
// occupancy, so they need only be shaped to give varied registers, shared memory and barriers.
#include "SweepKernels.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define STR2(a) #a
#define STR(a) STR2(a)

namespace CAT(variant_, SWEEP_VARIANT) {

// Acc live accumulators: many registers uncapped (80 for 64, more for 192), spills under caps.
template <int Acc>
__global__ void heavy(float *out, const float *in, int n) {
  float acc[Acc];
#pragma unroll
  for (int i = 0; i < Acc; ++i) acc[i] = in[threadIdx.x + i * n];
  for (int k = 0; k < n; ++k) {
    float x = in[k];
#pragma unroll
    for (int i = 0; i < Acc; ++i) acc[i] = fmaf(acc[i], x, acc[(i + 7) % Acc]);
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < Acc; ++i) s += acc[i] * (i + 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void light(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

template <int Bytes>
__global__ void staticSmem(float *out, int n) {
  __shared__ unsigned char s[Bytes];
  for (int i = threadIdx.x; i < Bytes; i += blockDim.x) s[i] = (unsigned char)(i * n);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x * 7) % Bytes];
}

__global__ void dynamicSmem(float *out, int n) {
  extern __shared__ float d[];
  d[threadIdx.x] = n;
  __syncthreads();
  out[threadIdx.x] = d[(threadIdx.x + 1) % blockDim.x];
}

// Named barrier Id: ptxas reports Id + 1 barriers.
template <int Id>
__global__ void namedBarrier(float *out) {
  out[threadIdx.x] = threadIdx.x;
  asm volatile("bar.sync %0;" ::"n"(Id) : "memory");
  out[threadIdx.x + blockDim.x] = out[threadIdx.x ^ 1];
}

__global__ void __launch_bounds__(256) bounded256(float *out, const float *in) {
  out[threadIdx.x] = in[threadIdx.x] * 2;
}

__global__ void __launch_bounds__(128, 8) bounded128x8(float *out, const float *in, int n) {
  float acc[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) acc[i] = in[threadIdx.x + i * n];
  for (int k = 0; k < n; ++k) {
#pragma unroll
    for (int i = 0; i < 32; ++i) acc[i] = fmaf(acc[i], acc[(i + 3) & 31], in[k]);
  }
  float s = 0;
#pragma unroll
  for (int i = 0; i < 32; ++i) s += acc[i];
  out[threadIdx.x] = s;
}

} // namespace

void CAT(registerSweepKernels_, SWEEP_VARIANT)(std::vector<SweepKernel> &Out) {
  using namespace CAT(variant_, SWEEP_VARIANT);
  const std::string V = STR(SWEEP_VARIANT);
  Out.push_back({"heavy<64>/" + V, (const void *)heavy<64>, 0});
  Out.push_back({"heavy<192>/" + V, (const void *)heavy<192>, 0});
  if (V != "rdefault")
    return; // the other kernels use few registers: one build of each is enough
  Out.push_back({"light", (const void *)light, 0});
  Out.push_back({"staticSmem<128>", (const void *)staticSmem<128>, 1});
  Out.push_back({"staticSmem<1000>", (const void *)staticSmem<1000>, 1});
  Out.push_back({"staticSmem<4096>", (const void *)staticSmem<4096>, 1});
  Out.push_back({"staticSmem<10000>", (const void *)staticSmem<10000>, 1});
  Out.push_back({"staticSmem<20000>", (const void *)staticSmem<20000>, 1});
  Out.push_back({"staticSmem<33000>", (const void *)staticSmem<33000>, 1});
  Out.push_back({"staticSmem<49152>", (const void *)staticSmem<49152>, 1});
  Out.push_back({"dynamicSmem", (const void *)dynamicSmem, 1});
  Out.push_back({"namedBarrier<1>", (const void *)namedBarrier<1>, 2});
  Out.push_back({"namedBarrier<3>", (const void *)namedBarrier<3>, 4});
  Out.push_back({"namedBarrier<7>", (const void *)namedBarrier<7>, 8});
  Out.push_back({"namedBarrier<15>", (const void *)namedBarrier<15>, 16});
  Out.push_back({"bounded256", (const void *)bounded256, 0});
  Out.push_back({"bounded128x8", (const void *)bounded128x8, 0});
}
