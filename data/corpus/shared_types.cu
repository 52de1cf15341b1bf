// Shared-memory accesses wider and narrower than 4 bytes, to establish how 8- and 16-byte accesses are split.
// Expectations assume the documented phase rule: an 8-byte access is served per half warp (16 lanes, 128 bytes)
// and a 16-byte access per quarter warp (8 lanes), each phase costing the most distinct 4-byte words in one bank.
// Accesses narrower than 4 bytes share words and are served in one wavefront when the warp spans <= 128 bytes.
// The load reads another warp's elements ((tid + 32) % 256) so that the compiler cannot reuse the stored value.
#include "corpus_util.h"

// @kernel pattern=coalesced
__global__ void smem_double_stride_1(const double* __restrict__ in, double* __restrict__ out) {
  __shared__ double s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = in[i];  // @ld.global 8B exp=8 @st.shared 8B exp=2
  __syncthreads();
  out[i] = s[(threadIdx.x + 32) % 256];  // @ld.shared 8B exp=2 @st.global 8B exp=8
}

// @kernel pattern=stride-2
__global__ void smem_double_stride_2(const double* __restrict__ in, double* __restrict__ out) {
  __shared__ double s[256 * 2];
  const double* src = in + blockIdx.x * (256 * 2);
  for (int j = threadIdx.x; j < 256 * 2; j += 256) s[j] = src[j];  // @ld.global 8B exp=8 @st.shared 8B exp=2
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 2];  // @ld.shared 8B exp=4 @st.global 8B exp=8
}

// @kernel pattern=stride-16; note=all 32 lanes hit the same two banks with distinct addresses
__global__ void smem_double_stride_16(const double* __restrict__ in, double* __restrict__ out) {
  __shared__ double s[256 * 16];
  const double* src = in + blockIdx.x * (256 * 16);
  for (int j = threadIdx.x; j < 256 * 16; j += 256) s[j] = src[j];  // @ld.global 8B exp=8 @st.shared 8B exp=2
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 16];  // @ld.shared 8B exp=32 @st.global 8B exp=8
}

// @kernel pattern=stride-33; note=odd stride: conflict-free within each half warp
__global__ void smem_double_stride_33(const double* __restrict__ in, double* __restrict__ out) {
  __shared__ double s[128 * 33];
  const double* src = in + blockIdx.x * (128 * 33);
  for (int j = threadIdx.x; j < 128 * 33; j += 128) s[j] = src[j];  // @ld.global 8B exp=8 @st.shared 8B exp=2
  __syncthreads();
  out[blockIdx.x * 128 + threadIdx.x] = s[threadIdx.x * 33];  // @ld.shared 8B exp=2 @st.global 8B exp=8
}

// @kernel pattern=broadcast; note=every lane reads s[0] as a double: 1 if the broadcast spans the whole warp, 2 under a strict half-warp rule
__global__ void smem_double_broadcast(const double* __restrict__ in, double* __restrict__ out) {
  __shared__ double s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = in[i];  // @ld.global 8B exp=8 @st.shared 8B exp=2
  __syncthreads();
  out[i] = s[0] * static_cast<double>(threadIdx.x);  // @ld.shared 8B exp=2 @st.global 8B exp=8
}

// @kernel pattern=coalesced
__global__ void smem_float2_stride_1(const float2* __restrict__ in, float2* __restrict__ out) {
  __shared__ float2 s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = in[i];  // @ld.global 8B exp=8 @st.shared 8B exp=2
  __syncthreads();
  out[i] = s[(threadIdx.x + 32) % 256];  // @ld.shared 8B exp=2 @st.global 8B exp=8
}

// @kernel pattern=coalesced
__global__ void smem_float4_stride_1(const float4* __restrict__ in, float4* __restrict__ out) {
  __shared__ float4 s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = in[i];  // @ld.global 16B exp=16 @st.shared 16B exp=4
  __syncthreads();
  out[i] = s[(threadIdx.x + 32) % 256];  // @ld.shared 16B exp=4 @st.global 16B exp=16
}

// @kernel pattern=stride-2
__global__ void smem_float4_stride_2(const float4* __restrict__ in, float4* __restrict__ out) {
  __shared__ float4 s[256 * 2];
  const float4* src = in + blockIdx.x * (256 * 2);
  for (int j = threadIdx.x; j < 256 * 2; j += 256) s[j] = src[j];  // @ld.global 16B exp=16 @st.shared 16B exp=4
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 2];  // @ld.shared 16B exp=8 @st.global 16B exp=16
}

// @kernel pattern=coalesced; note=2-byte elements: the warp's 64 bytes fit one wavefront
__global__ void smem_short_stride_1(const short* __restrict__ in, short* __restrict__ out) {
  __shared__ short s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = in[i];  // @ld.global 2B exp=2 @st.shared 2B exp=1
  __syncthreads();
  out[i] = s[(threadIdx.x + 32) % 256] + 1;  // @ld.shared 2B exp=1 @st.global 2B exp=2
}

// @kernel pattern=coalesced; note=1-byte elements
__global__ void smem_char_stride_1(const unsigned char* __restrict__ in, unsigned char* __restrict__ out) {
  __shared__ unsigned char s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = in[i];  // @ld.global 1B exp=1 @st.shared 1B exp=1
  __syncthreads();
  out[i] = s[(threadIdx.x + 32) % 256] + 1;  // @ld.shared 1B exp=1 @st.global 1B exp=1
}

int main() {
  const int blocks = 1024;
  double* inD = deviceRandomDoubles(blocks * 256 * 33, 111);
  double* outD = deviceAlloc<double>(blocks * 256);
  smem_double_stride_1<<<blocks, 256>>>(inD, outD);
  CHECK_LAUNCH();
  smem_double_stride_2<<<blocks, 256>>>(inD, outD);
  CHECK_LAUNCH();
  smem_double_stride_16<<<blocks, 256>>>(inD, outD);
  CHECK_LAUNCH();
  smem_double_stride_33<<<blocks, 128>>>(inD, outD);
  CHECK_LAUNCH();
  smem_double_broadcast<<<blocks, 256>>>(inD, outD);
  CHECK_LAUNCH();
  float2* in2 = deviceRandomElements<float2>(blocks * 256, 112);
  float2* out2 = deviceAlloc<float2>(blocks * 256);
  smem_float2_stride_1<<<blocks, 256>>>(in2, out2);
  CHECK_LAUNCH();
  float4* in4 = deviceRandomElements<float4>(blocks * 256 * 2, 113);
  float4* out4 = deviceAlloc<float4>(blocks * 256);
  smem_float4_stride_1<<<blocks, 256>>>(in4, out4);
  CHECK_LAUNCH();
  smem_float4_stride_2<<<blocks, 256>>>(in4, out4);
  CHECK_LAUNCH();
  short* inS = reinterpret_cast<short*>(deviceRandomBytes(blocks * 256 * 2, 114));
  short* outS = deviceAlloc<short>(blocks * 256);
  smem_short_stride_1<<<blocks, 256>>>(inS, outS);
  CHECK_LAUNCH();
  unsigned char* inC = deviceRandomBytes(blocks * 256, 115);
  unsigned char* outC = deviceAlloc<unsigned char>(blocks * 256);
  smem_char_stride_1<<<blocks, 256>>>(inC, outC);
  CHECK_LAUNCH();
  printf("shared_types: ok\n");
  return 0;
}
