// entry: void matmul_at(const float *A, const float *B, float *out, int m, int k, int n, cudaStream_t stream)
// One thread per output element out[i][j] = sum_p A[p][i] * B[p][j]; a warp reads one A element
// and 32 consecutive B elements per step.
#include <cuda_runtime.h>

__global__ void matmulAtNaive(const float *A, const float *B, float *C, int m, int k, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n)
    return;
  float s = 0.f;
  for (int p = 0; p < k; ++p)
    s += A[(long long)p * m + i] * B[(long long)p * n + j];
  C[(long long)i * n + j] = s;
}

extern "C" void matmul_at(const float *A, const float *B, float *out, int m, int k, int n, cudaStream_t stream) {
  dim3 block(32, 8);
  dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
  matmulAtNaive<<<grid, block, 0, stream>>>(A, B, out, m, k, n);
}
