// Two- and three-dimensional blocks and per-thread loops. Lanes are consecutive linear thread ids (x fastest, then
// y, then z), so a 16x16 block puts two 64-byte row pieces in one warp, an 8x32 block four 32-byte pieces.
#include "corpus_util.h"

// @kernel pattern=coalesced; note=16x16 block over a 2048-wide float matrix: a warp covers 2 rows x 16 floats
__global__ void copy2d_16x16(const float* __restrict__ in, float* __restrict__ out, int width) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  out[row * width + col] = in[row * width + col] * 2.0f;  // @ld.global 4B exp=4 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=8x32 block: a warp covers 4 rows x 8 floats (four 32-byte sectors in four rows)
__global__ void copy2d_8x32(const float* __restrict__ in, float* __restrict__ out, int width) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  out[row * width + col] = in[row * width + col] * 2.0f;  // @ld.global 4B exp=4 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=32x8 block: a warp covers one row of 32 floats
__global__ void copy2d_32x8(const float* __restrict__ in, float* __restrict__ out, int width) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  out[row * width + col] = in[row * width + col] * 2.0f;  // @ld.global 4B exp=4 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=8x8x4 block over a 256x256x64 volume: a warp covers 4 rows (y) x 8 floats (x) of one z slice
__global__ void copy3d_8x8x4(const float* __restrict__ in, float* __restrict__ out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  int idx = (z * height + y) * width + x;
  out[idx] = in[idx] * 2.0f;  // @ld.global 4B exp=4 @st.global 4B exp=4
}

// @kernel pattern=strided; note=16x16 block reading in[col][row]: threadIdx.x walks rows (stride 2048 floats); the two threadIdx.y values of a warp read neighbouring floats in one sector, so 16 sectors
__global__ void read_columns_16x16(const float* __restrict__ in, float* __restrict__ out, int width) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  out[row * width + col] = in[col * width + row];  // @ld.global 4B exp=16 @st.global 4B exp=4
}

// @kernel pattern=strided; note=one thread per row sums 1024 floats; lanes are a row (4096 bytes) apart; loop of 1024 iterations
__global__ void row_per_thread(const float* __restrict__ in, float* __restrict__ out, int rows) {
  const int cols = 1024;
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int j = 0; j < cols; ++j) sum += in[row * cols + j];  // @ld.global 4B exp=32
  out[row] = sum;  // @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=one thread per column sums 4096 rows; lanes read neighbouring floats; loop of 4096 iterations
__global__ void column_per_thread(const float* __restrict__ in, float* __restrict__ out, int cols) {
  const int rows = 4096;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float sum = 0.0f;
  for (int r = 0; r < rows; ++r) sum += in[r * cols + col];  // @ld.global 4B exp=4
  out[col] = sum;  // @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=grid-stride loop: 264 blocks x 256 threads over 4M floats (62 iterations per thread)
__global__ void grid_stride_scale(const float* __restrict__ in, float* __restrict__ out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i] * 3.0f;  // @ld.global 4B exp=4 @st.global 4B exp=4
}

int main() {
  const int width = 2048;
  const int height = 2048;
  float* in = deviceRandomFloats(width * height, 41);
  float* out = deviceAlloc<float>(width * height);
  {
    dim3 block(16, 16);
    dim3 grid(width / 16, height / 16);
    copy2d_16x16<<<grid, block>>>(in, out, width);
    CHECK_LAUNCH();
  }
  {
    dim3 block(8, 32);
    dim3 grid(width / 8, height / 32);
    copy2d_8x32<<<grid, block>>>(in, out, width);
    CHECK_LAUNCH();
  }
  {
    dim3 block(32, 8);
    dim3 grid(width / 32, height / 8);
    copy2d_32x8<<<grid, block>>>(in, out, width);
    CHECK_LAUNCH();
  }
  {
    const int vx = 256;
    const int vy = 256;
    const int vz = 64;
    dim3 block(8, 8, 4);
    dim3 grid(vx / 8, vy / 8, vz / 4);
    copy3d_8x8x4<<<grid, block>>>(in, out, vx, vy);
    CHECK_LAUNCH();
  }
  {
    dim3 block(16, 16);
    dim3 grid(width / 16, height / 16);
    read_columns_16x16<<<grid, block>>>(in, out, width);
    CHECK_LAUNCH();
  }
  {
    const int rows = 4096;  // 4096 x 1024 floats = the same 16 MB buffer
    row_per_thread<<<rows / 128, 128>>>(in, out, rows);
    CHECK_LAUNCH();
  }
  {
    const int cols = 1024;  // 4096 rows x 1024 columns
    column_per_thread<<<cols / 128, 128>>>(in, out, cols);
    CHECK_LAUNCH();
  }
  {
    const int n = width * height;
    grid_stride_scale<<<264, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  printf("global_2d: ok\n");
  return 0;
}
