// All-pairs n-body accelerations with positions staged through shared memory, fp32 and fp64.
// Per interaction: 3 subtractions, a softened squared distance, an inverse square root (special function),
// its cube, and 3 multiply-adds into the acceleration.
#include "corpus_util.h"

struct __align__(16) BodyD { double x, y, z, m; };  // 32 bytes: two 128-bit accesses

// @kernel pattern=coalesced; flops=20*16384*16384; note=16384 bodies as float4 (x, y, z, mass), 256-thread blocks, 64 tiles of 256 bodies; rsqrtf is counted separately (MUFU); nominal 20 FLOP per interaction excluding rsqrt
__global__ void nbody_f32(const float4* __restrict__ pos, float3* __restrict__ acc, int n) {
  __shared__ float4 tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = pos[i];  // @ld.global 16B exp=16
  float3 a = make_float3(0.0f, 0.0f, 0.0f);
  for (int t = 0; t < n; t += 256) {
    tile[threadIdx.x] = pos[t + threadIdx.x];  // @ld.global 16B exp=16 @st.shared 16B exp=4
    __syncthreads();
    for (int j = 0; j < 256; ++j) {
      float4 q = tile[j];  // @ld.shared 16B exp=1
      float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
      float d2 = dx * dx + dy * dy + dz * dz + 1e-6f;
      float inv = rsqrtf(d2);
      float s = q.w * inv * inv * inv;
      a.x += dx * s;
      a.y += dy * s;
      a.z += dz * s;
    }
    __syncthreads();
  }
  acc[i] = a;  // @st.global 4B exp=12 insts=3
}

// @kernel pattern=strided; flops=20*8192*8192; note=8192 bodies in fp64 as a 32-byte struct read with two 128-bit loads (lanes 32 bytes apart: 32 sectors each), 128-thread blocks; rsqrt() in fp64 is a library sequence (MUFU.RSQ64H plus DFMA refinement) that adds DFMA/DMUL counts
__global__ void nbody_f64(const BodyD* __restrict__ pos, double3* __restrict__ acc, int n) {
  __shared__ BodyD tile[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  BodyD p = pos[i];  // @ld.global 16B exp=32 insts=2
  double3 a = make_double3(0.0, 0.0, 0.0);
  for (int t = 0; t < n; t += 128) {
    tile[threadIdx.x] = pos[t + threadIdx.x];  // @ld.global 16B exp=32 insts=2 @st.shared 16B exp=8 insts=2
    __syncthreads();
    for (int j = 0; j < 128; ++j) {
      BodyD q = tile[j];  // @ld.shared 16B exp=1 insts=2
      double dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
      double d2 = dx * dx + dy * dy + dz * dz + 1e-12;
      double inv = rsqrt(d2);
      double s = q.m * inv * inv * inv;
      a.x += dx * s;
      a.y += dy * s;
      a.z += dz * s;
    }
    __syncthreads();
  }
  acc[i] = a;  // @st.global 8B exp=24 insts=3
}

int main() {
  {
    const int n = 16384;
    float4* pos = deviceRandomElements<float4>(n, 171);
    float3* acc = deviceAlloc<float3>(n);
    nbody_f32<<<n / 256, 256>>>(pos, acc, n);
    CHECK_LAUNCH();
  }
  {
    const int n = 8192;
    BodyD* pos = reinterpret_cast<BodyD*>(deviceRandomDoubles(n * 4, 172));
    double3* acc = deviceAlloc<double3>(n);
    nbody_f64<<<n / 128, 128>>>(pos, acc, n);
    CHECK_LAUNCH();
  }
  printf("compute_nbody: ok\n");
  return 0;
}
