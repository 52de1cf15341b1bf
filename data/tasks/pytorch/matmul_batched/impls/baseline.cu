// entry: void matmul_batched(const float *A, const float *B, float *out, int batch_size, int m, int k, int n, cudaStream_t stream)
// One thread per output element; blockIdx.z is the batch.
#include <cuda_runtime.h>

__global__ void bmmNaive(const float *A, const float *B, float *C, int m, int k, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n)
    return;
  long long b = blockIdx.z;
  const float *a = A + (b * m + row) * k;
  const float *bm = B + b * k * n + col;
  float s = 0.f;
  for (int p = 0; p < k; ++p)
    s += a[p] * bm[(long long)p * n];
  C[(b * m + row) * n + col] = s;
}

extern "C" void matmul_batched(const float *A, const float *B, float *out, int batch_size, int m, int k, int n,
                               cudaStream_t stream) {
  dim3 block(32, 8);
  dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y, batch_size);
  bmmNaive<<<grid, block, 0, stream>>>(A, B, out, m, k, n);
}
