// cudaperf-task: matmul
// cudaperf-class: precision-downgrade
// cudaperf-source: CUDA-L1 defence table (precision); KernelBench (fp16 where fp32 is asked)
// cudaperf-expect: wrong_answer
// Rounds A and B to fp16 and multiplies on tensor cores (WMMA 16x16x16, fp32 accumulation). With
// inputs in [-1, 1] and K = 256 the rounding error (about 2e-3 rms per output) exceeds the task's
// 1e-3 + 1e-3 |ref| for outputs near zero: it must be a wrong answer.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
using namespace nvcuda;

// One warp per 16x16 output tile; tiles padded with zeros through shared memory.
__global__ void matmulHalf(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ __half a[16 * 16], b[16 * 16];
  __shared__ float c[16 * 16];
  int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16, lane = threadIdx.x;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.f);
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int l = lane; l < 256; l += 32) {
      int r = l / 16, k = l % 16;
      a[l] = __float2half(row0 + r < M && k0 + k < K ? A[(long)(row0 + r) * K + k0 + k] : 0.f);
      b[l] = __float2half(k0 + r < K && col0 + k < N ? B[(long)(k0 + r) * N + col0 + k] : 0.f);
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncwarp();
  }
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
  __syncwarp();
  for (int l = lane; l < 256; l += 32) {
    int r = row0 + l / 16, col = col0 + l % 16;
    if (r < M && col < N)
      C[(long)r * N + col] = c[l];
  }
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  matmulHalf<<<dim3((N + 15) / 16, (M + 15) / 16), 32, 0, stream>>>(A, B, C, M, N, K);
}
