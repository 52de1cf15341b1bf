// RUN: %cudaperf-analyze --checks='-*,cuda-low-intensity' %cuda-builtin-args %s 2>&1 >/dev/null | FileCheck %s -implicit-check-not='{{note|warning|error}}:'
// Flagged: a naive matrix product (every element of a and b is requested n times straight from
// global memory) and a 3x3 stencil (each pixel requested 9 times). Not flagged: the same product
// with shared-memory tiles, a copy (no reuse), a small filter read by every thread (it stays in
// L1), and a compute-bound kernel that re-reads its input.

__global__ void matmulNaive(const float *a, const float *b, float *c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += a[row * n + k] * b[k * n + col];
// CHECK: :[[@LINE-1]]:12: note: 'a' is requested 512 times per distinct byte (536.9 MB of loads for 1.0 MB of data) straight from global memory, and 'matmulNaive' does {{[0-9.]+}} FLOP per byte moved through L1/L2, below the H200 ridge point of 15.6 FLOP/byte; load each reused tile once into __shared__ memory (or registers) and reuse it [cuda-low-intensity]
// CHECK: :[[@LINE-2]]:29: note: 'b' is requested 512 times {{.*}} [cuda-low-intensity]
  c[row * n + col] = sum;
}

__global__ void matmulTiled(const float *a, const float *b, float *c, int n) {
  __shared__ float as[16][16], bs[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * 16 + tx, row = blockIdx.y * 16 + ty;
  float sum = 0.0f;
  for (int t = 0; t < n; t += 16) {
    as[ty][tx] = a[row * n + t + tx];
    bs[ty][tx] = b[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = sum;
}

__global__ void stencil3x3(const float *img, const float *w, float *out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1)
    return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      s += w[(dy + 1) * 3 + dx + 1] * img[(y + dy) * n + x + dx];
// CHECK: :[[@LINE-1]]:39: note: 'img' is requested 9 times per distinct byte {{.*}}'stencil3x3' does {{.*}} [cuda-low-intensity]
  out[y * n + x] = s;
}

__global__ void copy(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i];
}

__global__ void polynomial(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < 8; ++r) {
    float v = x[(i + r) % 4096];
    for (int k = 0; k < 256; ++k)
      acc = acc * v + 1.0f;
  }
  y[i] = acc;
}

int main() {
  float *a = nullptr, *b = nullptr, *c = nullptr;
  matmulNaive<<<dim3(16, 64), dim3(32, 8)>>>(a, b, c, 512);
  matmulTiled<<<dim3(32, 32), dim3(16, 16)>>>(a, b, c, 512);
  stencil3x3<<<dim3(32, 128), dim3(32, 8)>>>(a, b, c, 1024);
  copy<<<1024, 256>>>(a, b);
  polynomial<<<1024, 256>>>(a, b);
  return 0;
}
