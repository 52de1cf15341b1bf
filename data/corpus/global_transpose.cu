// Matrix transpose of a 2048x2048 float matrix: naive (coalesced load, strided store) and through a shared tile.
// Tiled kernels use a 32x8 block, each thread moving 4 elements of a 32x32 tile.
#include "corpus_util.h"

// @kernel pattern=strided; note=load row-wise (coalesced), store column-wise: lanes are 2048 floats apart on the store
__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[x * n + y] = in[y * n + x];  // @ld.global 4B exp=4 @st.global 4B exp=32
}

// @kernel pattern=coalesced; note=shared tile [32][32] without padding: the column read of the tile is a 32-way bank conflict
__global__ void transpose_tiled_nopad(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];  // @ld.shared 4B exp=32 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=shared tile [32][33]: padding puts each column in 32 different banks
__global__ void transpose_tiled_pad(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=shared tile [32][32] with an XOR swizzle (column ^ row): conflict-free both ways without padding
__global__ void transpose_tiled_swizzle(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][32];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    int r = threadIdx.y + j;
    tile[r][threadIdx.x ^ r] = in[(y + j) * n + x];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  }
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    int c = threadIdx.y + j;
    out[(y + j) * n + x] = tile[threadIdx.x][c ^ threadIdx.x];  // @ld.shared 4B exp=1 @st.global 4B exp=4
  }
}

int main() {
  const int n = 2048;
  float* in = deviceRandomFloats(n * n, 51);
  float* out = deviceAlloc<float>(n * n);
  dim3 block(32, 8);
  dim3 gridNaive(n / 32, n / 8);
  dim3 gridTiled(n / 32, n / 32);
  transpose_naive<<<gridNaive, block>>>(in, out, n);
  CHECK_LAUNCH();
  transpose_tiled_nopad<<<gridTiled, block>>>(in, out, n);
  CHECK_LAUNCH();
  transpose_tiled_pad<<<gridTiled, block>>>(in, out, n);
  CHECK_LAUNCH();
  transpose_tiled_swizzle<<<gridTiled, block>>>(in, out, n);
  CHECK_LAUNCH();
  printf("global_transpose: ok\n");
  return 0;
}
