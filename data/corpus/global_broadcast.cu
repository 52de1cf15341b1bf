// Global loads where several lanes of a warp read the same address: a warp pays once per distinct sector.
#include "corpus_util.h"

// @kernel pattern=broadcast; note=every lane of every warp reads in[0]
__global__ void load_same_address(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[0] * static_cast<float>(i);  // @ld.global 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=broadcast; note=one address per block (blockIdx.x is uniform)
__global__ void load_block_uniform(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[blockIdx.x] + static_cast<float>(threadIdx.x);  // @ld.global 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=broadcast; note=in[i / 32]: one address per warp (blocks are multiples of 32)
__global__ void load_warp_uniform(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i / 32] + static_cast<float>(i);  // @ld.global 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=broadcast; note=in[i / 2]: pairs of lanes share a float, 16 distinct floats = 64 bytes per warp
__global__ void load_pairs(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i / 2];  // @ld.global 4B exp=2 @st.global 4B exp=4
}

// @kernel pattern=broadcast; note=in[i / 4]: 8 distinct floats = one 32-byte sector per warp
__global__ void load_quads(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i / 4];  // @ld.global 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=broadcast; note=in[threadIdx.x % 4]: 4 distinct floats in one sector
__global__ void load_lane_mod4(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[threadIdx.x % 4] + static_cast<float>(i);  // @ld.global 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=broadcast; note=all 32 lanes of a warp store to out[i / 32] (one winner per address)
__global__ void store_warp_uniform(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i / 32] = in[i];  // @ld.global 4B exp=4 @st.global 4B exp=1
}

int main() {
  const int n = 1 << 22;
  float* in = deviceRandomFloats(n, 31);
  float* out = deviceAlloc<float>(n);
  load_same_address<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_block_uniform<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_warp_uniform<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_pairs<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_quads<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_lane_mod4<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  store_warp_uniform<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  printf("global_broadcast: ok\n");
  return 0;
}
