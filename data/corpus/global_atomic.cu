// Global atomics: a reduction whose result is unused compiles to RED, one whose result is used to ATOM.
#include "corpus_util.h"

// @kernel pattern=coalesced; note=each lane adds to its own float: unit-stride RED
__global__ void red_add_distinct(const float* __restrict__ in, float* __restrict__ acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&acc[i], in[i]);  // @ld.global 4B exp=4 @red.global 4B exp=4
}

// @kernel pattern=broadcast; note=every lane of every warp adds to acc[0] (maximum contention)
__global__ void red_add_same(const float* __restrict__ in, float* __restrict__ acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&acc[0], in[i]);  // @ld.global 4B exp=4 @red.global 4B exp=1
}

// @kernel pattern=coalesced; note=the old value is used, so this is ATOM rather than RED
__global__ void atom_add_distinct(const int* __restrict__ in, int* __restrict__ counters, int* __restrict__ old, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) old[i] = atomicAdd(&counters[i], in[i]);  // @ld.global 4B exp=4 @atom.global 4B exp=4 @st.global 4B exp=4
}

int main() {
  const int n = 1 << 22;
  float* in = deviceRandomFloats(n, 81);
  float* acc = deviceRandomFloats(n, 82);
  red_add_distinct<<<(n + 255) / 256, 256>>>(in, acc, n);
  CHECK_LAUNCH();
  red_add_same<<<(n + 255) / 256, 256>>>(in, acc, n);
  CHECK_LAUNCH();
  int* inInt = deviceRandomIndices(n, 100, 83);
  int* counters = deviceRandomIndices(n, 1000, 84);
  int* old = deviceAlloc<int>(n);
  atom_add_distinct<<<(n + 255) / 256, 256>>>(inInt, counters, old, n);
  CHECK_LAUNCH();
  printf("global_atomic: ok\n");
  return 0;
}
