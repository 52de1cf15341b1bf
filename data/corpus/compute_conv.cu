// 2D convolutions of a 2048x2048 single-channel float image with a filter held in global memory (uniform loads).
#include "corpus_util.h"

// @kernel pattern=misaligned; flops=2*9*2046*2046; note=3x3 filter, 32x8 block, interior pixels: 9 image loads per pixel (offsets -1/0/+1 in x: 5, 4, 5 sectors) and 9 filter loads that are one address per warp
__global__ void conv2d_3x3(const float* __restrict__ img, const float* __restrict__ filt, float* __restrict__ out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      sum += filt[(dy + 1) * 3 + dx + 1] * img[(y + dy) * n + x + dx];  // @ld.global 4B exp=1 insts=9 @ld.global 4B exp=4.67 insts=9
  out[y * n + x] = sum;  // @st.global 4B exp=4
}

// @kernel pattern=coalesced; flops=2*25*2048*2048; note=5x5 filter through a shared tile with a 2-pixel halo (36x12 floats for a 32x8 block); zero padding at the borders
__global__ void conv2d_5x5_tiled(const float* __restrict__ img, const float* __restrict__ filt, float* __restrict__ out, int n) {
  __shared__ float tile[12][36];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x * 32 - 2, y0 = blockIdx.y * 8 - 2;
  for (int l = ty * 32 + tx; l < 12 * 36; l += 256) {
    int r = l / 36, c = l % 36;
    int gx = x0 + c, gy = y0 + r;
    tile[r][c] = (gx >= 0 && gy >= 0 && gx < n && gy < n) ? img[gy * n + gx] : 0.0f;  // @ld.global 4B exp=dd @st.shared 4B exp=1
  }
  __syncthreads();
  float sum = 0.0f;
  for (int dy = 0; dy < 5; ++dy)
    for (int dx = 0; dx < 5; ++dx)
      sum += filt[dy * 5 + dx] * tile[ty + dy][tx + dx];  // @ld.global 4B exp=1 insts=25 @ld.shared 4B exp=1 insts=25
  out[(blockIdx.y * 8 + ty) * n + blockIdx.x * 32 + tx] = sum;  // @st.global 4B exp=4
}

int main() {
  const int n = 2048;
  float* img = deviceRandomFloats(n * n, 161);
  float* filt = deviceRandomFloats(25, 162);
  float* out = deviceAlloc<float>(n * n);
  dim3 block(32, 8);
  dim3 grid(n / 32, n / 8);
  conv2d_3x3<<<grid, block>>>(img, filt, out, n);
  CHECK_LAUNCH();
  conv2d_5x5_tiled<<<grid, block>>>(img, filt, out, n);
  CHECK_LAUNCH();
  printf("compute_conv: ok\n");
  return 0;
}
