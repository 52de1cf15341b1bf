// Shared-memory bank conflicts for 4-byte elements at a constant stride: lane l reads s[l * S].
// 32 banks of 4 bytes: the wavefronts per request are the most distinct words that fall in one bank,
// gcd(S, 32) for this pattern. Each block (256 threads) first fills its tile with unit-stride stores (1 wavefront).
#include "corpus_util.h"

// @kernel pattern=stride-1
__global__ void smem_read_stride_1(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 1];
  const float* src = in + blockIdx.x * (256 * 1);
  for (int j = threadIdx.x; j < 256 * 1; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 1];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-2
__global__ void smem_read_stride_2(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 2];
  const float* src = in + blockIdx.x * (256 * 2);
  for (int j = threadIdx.x; j < 256 * 2; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 2];  // @ld.shared 4B exp=2 @st.global 4B exp=4
}

// @kernel pattern=stride-3
__global__ void smem_read_stride_3(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 3];
  const float* src = in + blockIdx.x * (256 * 3);
  for (int j = threadIdx.x; j < 256 * 3; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 3];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-4
__global__ void smem_read_stride_4(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 4];
  const float* src = in + blockIdx.x * (256 * 4);
  for (int j = threadIdx.x; j < 256 * 4; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 4];  // @ld.shared 4B exp=4 @st.global 4B exp=4
}

// @kernel pattern=stride-5
__global__ void smem_read_stride_5(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 5];
  const float* src = in + blockIdx.x * (256 * 5);
  for (int j = threadIdx.x; j < 256 * 5; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 5];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-6
__global__ void smem_read_stride_6(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 6];
  const float* src = in + blockIdx.x * (256 * 6);
  for (int j = threadIdx.x; j < 256 * 6; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 6];  // @ld.shared 4B exp=2 @st.global 4B exp=4
}

// @kernel pattern=stride-8
__global__ void smem_read_stride_8(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 8];
  const float* src = in + blockIdx.x * (256 * 8);
  for (int j = threadIdx.x; j < 256 * 8; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 8];  // @ld.shared 4B exp=8 @st.global 4B exp=4
}

// @kernel pattern=stride-16
__global__ void smem_read_stride_16(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 16];
  const float* src = in + blockIdx.x * (256 * 16);
  for (int j = threadIdx.x; j < 256 * 16; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 16];  // @ld.shared 4B exp=16 @st.global 4B exp=4
}

// @kernel pattern=stride-17
__global__ void smem_read_stride_17(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 17];
  const float* src = in + blockIdx.x * (256 * 17);
  for (int j = threadIdx.x; j < 256 * 17; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 17];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-24
__global__ void smem_read_stride_24(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 24];
  const float* src = in + blockIdx.x * (256 * 24);
  for (int j = threadIdx.x; j < 256 * 24; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 24];  // @ld.shared 4B exp=8 @st.global 4B exp=4
}

// @kernel pattern=stride-31
__global__ void smem_read_stride_31(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 31];
  const float* src = in + blockIdx.x * (256 * 31);
  for (int j = threadIdx.x; j < 256 * 31; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 31];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-32
__global__ void smem_read_stride_32(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 32];
  const float* src = in + blockIdx.x * (256 * 32);
  for (int j = threadIdx.x; j < 256 * 32; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 32];  // @ld.shared 4B exp=32 @st.global 4B exp=4
}

// @kernel pattern=stride-33
__global__ void smem_read_stride_33(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 33];
  const float* src = in + blockIdx.x * (256 * 33);
  for (int j = threadIdx.x; j < 256 * 33; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x * 33];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-2; note=store and load both at stride 2 (the load reads another warp's words)
__global__ void smem_write_stride_2(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 2];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x * 2] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=2
  __syncthreads();
  out[i] = s[((threadIdx.x + 32) % 256) * 2];  // @ld.shared 4B exp=2 @st.global 4B exp=4
}

// @kernel pattern=stride-8; note=store and load both at stride 8 (the load reads another warp's words)
__global__ void smem_write_stride_8(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 8];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x * 8] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=8
  __syncthreads();
  out[i] = s[((threadIdx.x + 32) % 256) * 8];  // @ld.shared 4B exp=8 @st.global 4B exp=4
}

// @kernel pattern=stride-32; note=store and load both at stride 32 (the load reads another warp's words)
__global__ void smem_write_stride_32(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 32];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x * 32] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=32
  __syncthreads();
  out[i] = s[((threadIdx.x + 32) % 256) * 32];  // @ld.shared 4B exp=32 @st.global 4B exp=4
}

// @kernel pattern=stride-33; note=store and load both at stride 33 (the load reads another warp's words)
__global__ void smem_write_stride_33(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256 * 33];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x * 33] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[i] = s[((threadIdx.x + 32) % 256) * 33];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}
int main() {
  const int blocks = 1024;
  float* in = deviceRandomFloats(blocks * 256 * 33, 101);  // enough for the largest stride
  float* out = deviceAlloc<float>(blocks * 256);
  smem_read_stride_1<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_2<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_3<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_4<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_5<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_6<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_8<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_16<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_17<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_24<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_31<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_32<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_read_stride_33<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_write_stride_2<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_write_stride_8<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_write_stride_32<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_write_stride_33<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  printf("shared_stride: ok\n");
  return 0;
}
