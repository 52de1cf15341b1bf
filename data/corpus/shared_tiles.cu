// Two-dimensional shared tiles read by row and by column, with and without padding or an XOR swizzle.
// 32x32 tiles use a 32x32 block (one element per thread) over a 2048x2048 matrix; 16x16 tiles a 16x16 block, where
// a warp holds two rows of threads (ty and ty + 1).
#include "corpus_util.h"

// @kernel pattern=coalesced; note=row-wise store, reversed row-wise read: both conflict-free
__global__ void tile_read_rows(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = (blockIdx.y * 32 + ty) * n + blockIdx.x * 32 + tx;
  tile[ty][tx] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[i] = tile[ty][31 - tx];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-32; note=column read of an unpadded tile: all 32 lanes in one bank
__global__ void tile_read_cols(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = (blockIdx.y * 32 + ty) * n + blockIdx.x * 32 + tx;
  tile[ty][tx] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[i] = tile[tx][ty];  // @ld.shared 4B exp=32 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=column read of a [32][33] tile: conflict-free
__global__ void tile_read_cols_padded(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][33];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = (blockIdx.y * 32 + ty) * n + blockIdx.x * 32 + tx;
  tile[ty][tx] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[i] = tile[tx][ty];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-32; note=column-wise store (32-way), row-wise read
__global__ void tile_write_cols(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = (blockIdx.y * 32 + ty) * n + blockIdx.x * 32 + tx;
  tile[tx][ty] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=32
  __syncthreads();
  out[i] = tile[ty][tx];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=XOR swizzle: element (r, c) lives at tile[r][c ^ r]; row store and column read are both conflict-free
__global__ void tile_read_cols_swizzled(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = (blockIdx.y * 32 + ty) * n + blockIdx.x * 32 + tx;
  tile[ty][tx ^ ty] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[i] = tile[tx][ty ^ tx];  // @ld.shared 4B exp=1 @st.global 4B exp=4
}

// @kernel pattern=stride-16; note=16x16 block: lanes tx = 0..15 read rows 16 words apart, the warp's two ty values neighbouring words: 8 distinct words per bank
__global__ void tile16_read_cols(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = (blockIdx.y * 16 + ty) * n + blockIdx.x * 16 + tx;
  tile[ty][tx] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[i] = tile[tx][ty];  // @ld.shared 4B exp=8 @st.global 4B exp=4
}

// @kernel pattern=stride-17; note=[16][17] padding: 2-way, because the warp's two ty values wrap onto one bank once
__global__ void tile16_read_cols_padded(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[16][17];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = (blockIdx.y * 16 + ty) * n + blockIdx.x * 16 + tx;
  tile[ty][tx] = in[i];  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  out[i] = tile[tx][ty];  // @ld.shared 4B exp=2 @st.global 4B exp=4
}

// @kernel pattern=stride-32; note=double tile [32][32] read by column: 32 distinct 8-byte words in the same two banks
__global__ void tile_double_read_cols(const double* __restrict__ in, double* __restrict__ out, int n) {
  __shared__ double tile[32][32];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = (blockIdx.y * 32 + ty) * n + blockIdx.x * 32 + tx;
  tile[ty][tx] = in[i];  // @ld.global 8B exp=8 @st.shared 8B exp=2
  __syncthreads();
  out[i] = tile[tx][ty];  // @ld.shared 8B exp=32 @st.global 8B exp=8
}

// @kernel pattern=stride-33; note=double tile [32][33] read by column: conflict-free per half warp
__global__ void tile_double_read_cols_padded(const double* __restrict__ in, double* __restrict__ out, int n) {
  __shared__ double tile[32][33];
  int tx = threadIdx.x, ty = threadIdx.y;
  int i = (blockIdx.y * 32 + ty) * n + blockIdx.x * 32 + tx;
  tile[ty][tx] = in[i];  // @ld.global 8B exp=8 @st.shared 8B exp=2
  __syncthreads();
  out[i] = tile[tx][ty];  // @ld.shared 8B exp=2 @st.global 8B exp=8
}

int main() {
  const int n = 2048;
  float* in = deviceRandomFloats(n * n, 121);
  float* out = deviceAlloc<float>(n * n);
  dim3 block32(32, 32);
  dim3 grid32(n / 32, n / 32);
  dim3 block16(16, 16);
  dim3 grid16(n / 16, n / 16);
  tile_read_rows<<<grid32, block32>>>(in, out, n);
  CHECK_LAUNCH();
  tile_read_cols<<<grid32, block32>>>(in, out, n);
  CHECK_LAUNCH();
  tile_read_cols_padded<<<grid32, block32>>>(in, out, n);
  CHECK_LAUNCH();
  tile_write_cols<<<grid32, block32>>>(in, out, n);
  CHECK_LAUNCH();
  tile_read_cols_swizzled<<<grid32, block32>>>(in, out, n);
  CHECK_LAUNCH();
  tile16_read_cols<<<grid16, block16>>>(in, out, n);
  CHECK_LAUNCH();
  tile16_read_cols_padded<<<grid16, block16>>>(in, out, n);
  CHECK_LAUNCH();
  double* inD = deviceRandomDoubles(n * n, 122);
  double* outD = deviceAlloc<double>(n * n);
  tile_double_read_cols<<<grid32, block32>>>(inD, outD, n);
  CHECK_LAUNCH();
  tile_double_read_cols_padded<<<grid32, block32>>>(inD, outD, n);
  CHECK_LAUNCH();
  printf("shared_tiles: ok\n");
  return 0;
}
