// Real kernels with mixed access patterns. Kernel-level ratios here average several accesses; the per-access
// expectations are on each line.
#include "corpus_util.h"

// @kernel pattern=broadcast; flops=2*1024*1024*1024; note=C = A x B, N = 1024, 16x16 block. A[row][k]: lanes 0-15 share one address and lanes 16-31 another (2 sectors); B[k][col]: 16 floats shared by both rows of the warp (2 sectors); C: 2 rows x 16 floats (4 sectors)
__global__ void matmul_naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];  // @ld.global 4B exp=2 @ld.global 4B exp=2
  c[row * n + col] = sum;  // @st.global 4B exp=4
}

// @kernel pattern=coalesced; flops=2*1024*1024*1024; note=16x16 shared tiles. Tile loads 2 rows x 16 floats (4 sectors); tile reads: as[ty][k] is 2 addresses in different banks, bs[k][tx] 16 consecutive words shared by both rows (1 wavefront each, unless the compiler widens them)
__global__ void matmul_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ float as[16][16];
  __shared__ float bs[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * 16 + tx;
  int row = blockIdx.y * 16 + ty;
  float sum = 0.0f;
  for (int t = 0; t < n; t += 16) {
    as[ty][tx] = a[row * n + t + tx];  // @ld.global 4B exp=4 @st.shared 4B exp=1
    bs[ty][tx] = b[(t + ty) * n + col];  // @ld.global 4B exp=4 @st.shared 4B exp=1
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += as[ty][k] * bs[k][tx];  // @ld.shared 4B exp=1 @ld.shared 4B exp=1
    __syncthreads();
  }
  c[row * n + col] = sum;  // @st.global 4B exp=4
}

// @kernel pattern=misaligned; note=5-point stencil on 2048x2048, 32x8 block: center/up/down loads 4 sectors, left/right loads 5 (shifted by one float); interior points only
__global__ void stencil2d_5pt(const float* __restrict__ in, float* __restrict__ out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
  float center = in[y * n + x];  // @ld.global 4B exp=4
  float left = in[y * n + x - 1];  // @ld.global 4B exp=5
  float right = in[y * n + x + 1];  // @ld.global 4B exp=5
  float up = in[(y - 1) * n + x];  // @ld.global 4B exp=4
  float down = in[(y + 1) * n + x];  // @ld.global 4B exp=4
  out[y * n + x] = 0.5f * center + 0.125f * (left + right + up + down);  // @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=block sum with a shared-memory tree (sequential addressing): conflict-free shared accesses; one store per block by thread 0
__global__ void reduce_sum(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float s[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  s[tid] = (i < n) ? in[i] : 0.0f;  // @ld.global 4B exp=4 @st.shared 4B exp=1
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];  // @ld.shared 4B exp=1 insts=2 @st.shared 4B exp=1
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];  // @ld.shared 4B exp=1 @st.global 4B exp=1
}

// @kernel pattern=coalesced; note=one 256-thread block per row of 1024 floats; three passes over the row (max, sum of exp, write); block reductions through shared memory
__global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int cols) {
  __shared__ float red[256];
  const float* x = in + blockIdx.x * cols;
  float* y = out + blockIdx.x * cols;
  int tid = threadIdx.x;
  float m = -INFINITY;
  for (int j = tid; j < cols; j += blockDim.x) m = fmaxf(m, x[j]);  // @ld.global 4B exp=4
  red[tid] = m;  // @st.shared 4B exp=1
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);  // @ld.shared 4B exp=1 insts=2 @st.shared 4B exp=1
    __syncthreads();
  }
  m = red[0];  // @ld.shared 4B exp=1
  __syncthreads();
  float sum = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) sum += expf(x[j] - m);  // @ld.global 4B exp=4
  red[tid] = sum;  // @st.shared 4B exp=1
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) red[tid] += red[tid + s];  // @ld.shared 4B exp=1 insts=2 @st.shared 4B exp=1
    __syncthreads();
  }
  float inv = 1.0f / red[0];  // @ld.shared 4B exp=1
  for (int j = tid; j < cols; j += blockDim.x) y[j] = expf(x[j] - m) * inv;  // @ld.global 4B exp=4 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=one 256-thread block per row of 1024 floats; mean and variance through shared reductions, then normalise with gamma and beta
__global__ void layernorm_rows(const float* __restrict__ in, const float* __restrict__ gamma, const float* __restrict__ beta,
                               float* __restrict__ out, int cols) {
  __shared__ float red[256];
  const float* x = in + blockIdx.x * cols;
  float* y = out + blockIdx.x * cols;
  int tid = threadIdx.x;
  float sum = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) sum += x[j];  // @ld.global 4B exp=4
  red[tid] = sum;  // @st.shared 4B exp=1
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) red[tid] += red[tid + s];  // @ld.shared 4B exp=1 insts=2 @st.shared 4B exp=1
    __syncthreads();
  }
  float mean = red[0] / cols;  // @ld.shared 4B exp=1
  __syncthreads();
  float var = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) {
    float d = x[j] - mean;  // @ld.global 4B exp=4
    var += d * d;
  }
  red[tid] = var;  // @st.shared 4B exp=1
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) red[tid] += red[tid + s];  // @ld.shared 4B exp=1 insts=2 @st.shared 4B exp=1
    __syncthreads();
  }
  float rstd = rsqrtf(red[0] / cols + 1e-5f);  // @ld.shared 4B exp=1
  for (int j = tid; j < cols; j += blockDim.x)
    y[j] = (x[j] - mean) * rstd * gamma[j] + beta[j];  // @ld.global 4B exp=4 insts=3 @st.global 4B exp=4
}

int main() {
  {
    const int n = 1024;
    float* a = deviceRandomFloats(n * n, 91);
    float* b = deviceRandomFloats(n * n, 92);
    float* c = deviceAlloc<float>(n * n);
    dim3 block(16, 16);
    dim3 grid(n / 16, n / 16);
    matmul_naive<<<grid, block>>>(a, b, c, n);
    CHECK_LAUNCH();
    matmul_tiled<<<grid, block>>>(a, b, c, n);
    CHECK_LAUNCH();
  }
  {
    const int n = 2048;
    float* in = deviceRandomFloats(n * n, 93);
    float* out = deviceAlloc<float>(n * n);
    dim3 block(32, 8);
    dim3 grid(n / 32, n / 8);
    stencil2d_5pt<<<grid, block>>>(in, out, n);
    CHECK_LAUNCH();
  }
  {
    const int n = 1 << 22;
    float* in = deviceRandomFloats(n, 94);
    float* out = deviceAlloc<float>(n / 256);
    reduce_sum<<<n / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  {
    const int rows = 4096;
    const int cols = 1024;
    float* in = deviceRandomFloats(rows * cols, 95);
    float* out = deviceAlloc<float>(rows * cols);
    float* gamma = deviceRandomFloats(cols, 96);
    float* beta = deviceRandomFloats(cols, 97);
    softmax_rows<<<rows, 256>>>(in, out, cols);
    CHECK_LAUNCH();
    layernorm_rows<<<rows, 256>>>(in, gamma, beta, out, cols);
    CHECK_LAUNCH();
  }
  printf("global_real: ok\n");
  return 0;
}
