// Data-dependent addresses: indices and pointers loaded from memory. A static analysis must classify these as
// data-dependent; the expectations below follow from how the host filled the index arrays.
#include <vector>
#include "corpus_util.h"

// @kernel pattern=data-dependent; note=two loads of different patterns: idx[i] is coalesced (4), in[idx[i]] with random indices over 16 MB touches ~32 sectors; kernel-level load ratio ~ (4 + 32) / 2
__global__ void gather_random(const float* __restrict__ in, const int* __restrict__ idx, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = idx[i];  // @ld.global 4B exp=4
    out[i] = in[j];  // @ld.global 4B exp=dd(~32) @st.global 4B exp=4
  }
}

// @kernel pattern=data-dependent; note=idx[i] == i: data-dependent in form, coalesced in fact (both loads 4)
__global__ void gather_identity(const float* __restrict__ in, const int* __restrict__ idx, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = idx[i];  // @ld.global 4B exp=4
    out[i] = in[j];  // @ld.global 4B exp=dd(4) @st.global 4B exp=4
  }
}

// @kernel pattern=data-dependent; note=idx is a random permutation inside each aligned group of 32: one warp still reads one 128-byte line (4 sectors)
__global__ void gather_warp_permuted(const float* __restrict__ in, const int* __restrict__ idx, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = idx[i];  // @ld.global 4B exp=4
    out[i] = in[j];  // @ld.global 4B exp=dd(4) @st.global 4B exp=4
  }
}

// @kernel pattern=data-dependent; note=scatter: out[idx[i]] = in[i] with random indices (~32 sectors per store)
__global__ void scatter_random(const float* __restrict__ in, const int* __restrict__ idx, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = idx[i];  // @ld.global 4B exp=4
    out[j] = in[i];  // @ld.global 4B exp=4 @st.global 4B exp=dd(~32)
  }
}

// @kernel pattern=data-dependent; note=pointer chasing: each thread follows 16 links of a random permutation (the first load is coalesced, the 15 dependent ones random)
__global__ void chase_random(const int* __restrict__ next, int* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int p = i;
    for (int step = 0; step < 16; ++step) p = next[p];  // @ld.global 4B exp=dd(~30)
    out[i] = p;  // @st.global 4B exp=4
  }
}

int main() {
  const int n = 1 << 22;
  float* in = deviceRandomFloats(n, 61);
  float* out = deviceAlloc<float>(n);
  int* randomIdx = deviceRandomIndices(n, n, 62);
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = i;
  int* identityIdx = deviceCopy(h);
  uint32_t s = 63;
  for (int base = 0; base < n; base += 32)  // shuffle within each group of 32
    for (int k = 31; k > 0; --k) std::swap(h[base + k], h[base + nextRandom(s) % (k + 1)]);
  int* warpPermutedIdx = deviceCopy(h);
  for (int i = 0; i < n; ++i) h[i] = i;
  for (int k = n - 1; k > 0; --k) std::swap(h[k], h[nextRandom(s) % (k + 1)]);  // one random permutation
  int* next = deviceCopy(h);
  int* outInt = deviceAlloc<int>(n);

  gather_random<<<(n + 255) / 256, 256>>>(in, randomIdx, out, n);
  CHECK_LAUNCH();
  gather_identity<<<(n + 255) / 256, 256>>>(in, identityIdx, out, n);
  CHECK_LAUNCH();
  gather_warp_permuted<<<(n + 255) / 256, 256>>>(in, warpPermutedIdx, out, n);
  CHECK_LAUNCH();
  scatter_random<<<(n + 255) / 256, 256>>>(in, randomIdx, out, n);
  CHECK_LAUNCH();
  chase_random<<<(n + 255) / 256, 256>>>(next, outInt, n);
  CHECK_LAUNCH();
  printf("global_gather: ok\n");
  return 0;
}
