// Shared-memory broadcasts, dynamic shared memory, tree reductions and histograms with shared atomics.
#include "corpus_util.h"

// @kernel pattern=broadcast; note=every lane reads s[0]
__global__ void smem_broadcast_all(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[i] = s[0] * static_cast<float>(threadIdx.x);  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=broadcast; note=s[tid / 2]: pairs of lanes share a word
__global__ void smem_broadcast_pairs(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[i] = s[threadIdx.x / 2];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-32; note=s[(tid / 4) * 32]: groups of 4 lanes share a word, and the 8 groups' words sit in one bank
__global__ void smem_groups4_stride32(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[2048];
  const float* src = in + blockIdx.x * 2048;
  for (int j = threadIdx.x; j < 2048; j += 256) s[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = s[(threadIdx.x / 4) * 32];  // @ld.shared 4B exp=8 @st.global 4B exp=4
}

// @kernel pattern=broadcast; note=s[tid % 8]: 8 distinct words in 8 banks
__global__ void smem_lane_mod8(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[i] = s[threadIdx.x % 8] + static_cast<float>(threadIdx.x);  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-2; note=extern __shared__ array sized by the launch (2048 bytes = 512 floats)
__global__ void smem_dynamic_stride_2(const float* __restrict__ in, float* __restrict__ out) {
  extern __shared__ float dyn[];
  const float* src = in + blockIdx.x * 512;
  for (int j = threadIdx.x; j < 512; j += 256) dyn[j] = src[j];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = dyn[threadIdx.x * 2];  // @ld.shared 4B exp=2 @st.global 4B exp=4
}

// @kernel pattern=strided; note=interleaved tree reduction (index = 2 * s * tid): 2-, 4-, 8-way conflicts that change per iteration; averaged over the executed instructions of a 256-thread block the load expectation is 3.92 wavefronts (per iteration s = 1..128: 2, 4, 8, 8, 8, 4, 2, 1)
__global__ void reduce_tree_interleaved(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float sdata[256];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    unsigned index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];  // @ld.shared 4B exp=3.92 insts=2 @st.shared 4B exp=3.92
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];  // @ld.shared 4B exp=1 @st.global 4B exp=1
}

// @kernel pattern=data-dependent; note=256-bin histogram of random bytes with shared atomics (random bins: few lanes collide), merged into a global histogram with one RED per bin
__global__ void hist_shared_random(const unsigned char* __restrict__ in, unsigned* __restrict__ hist, int n) {
  __shared__ unsigned h[256];
  h[threadIdx.x] = 0;  // @st.shared 4B exp=1
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&h[in[i]], 1u);  // @ld.global 1B exp=1 @atom.shared 4B exp=dd
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);  // @ld.shared 4B exp=1 @red.global 4B exp=4
}

// @kernel pattern=broadcast; note=every lane increments bin 0 (maximum contention on one shared word)
__global__ void hist_shared_same_bin(const unsigned char* __restrict__ in, unsigned* __restrict__ hist, int n) {
  __shared__ unsigned h[256];
  h[threadIdx.x] = 0;  // @st.shared 4B exp=1
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&h[0], static_cast<unsigned>(in[i]) | 1u);  // @ld.global 1B exp=1 @atom.shared 4B exp=1
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);  // @ld.shared 4B exp=1 @red.global 4B exp=4
}

// @kernel pattern=coalesced; note=bin = lane id: distinct words in distinct banks
__global__ void hist_shared_lane_bin(const unsigned char* __restrict__ in, unsigned* __restrict__ hist, int n) {
  __shared__ unsigned h[256];
  h[threadIdx.x] = 0;  // @st.shared 4B exp=1
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&h[threadIdx.x % 32], static_cast<unsigned>(in[i]));  // @ld.global 1B exp=1 @atom.shared 4B exp=1
  __syncthreads();
  atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);  // @ld.shared 4B exp=1 @red.global 4B exp=4
}

int main() {
  const int blocks = 1024;
  float* in = deviceRandomFloats(blocks * 2048, 131);
  float* out = deviceAlloc<float>(blocks * 256);
  smem_broadcast_all<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_broadcast_pairs<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_groups4_stride32<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  smem_lane_mod8<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  const int dynamicBytes = 512 * 4;
  smem_dynamic_stride_2<<<blocks, 256, dynamicBytes>>>(in, out);
  CHECK_LAUNCH();
  reduce_tree_interleaved<<<blocks, 256>>>(in, out);
  CHECK_LAUNCH();
  const int n = 1 << 24;
  unsigned char* bytes = deviceRandomBytes(n, 132);
  unsigned* hist = deviceAlloc<unsigned>(256);
  hist_shared_random<<<264, 256>>>(bytes, hist, n);
  CHECK_LAUNCH();
  hist_shared_same_bin<<<264, 256>>>(bytes, hist, n);
  CHECK_LAUNCH();
  hist_shared_lane_bin<<<264, 256>>>(bytes, hist, n);
  CHECK_LAUNCH();
  printf("shared_misc: ok\n");
  return 0;
}
