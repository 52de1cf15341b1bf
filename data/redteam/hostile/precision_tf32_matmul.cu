// cudaperf-task: matmul
// cudaperf-class: precision-downgrade
// cudaperf-source: CUDA-L1 defence table (precision); PyTorch's allow_tf32 (TF32 where fp32 is asked)
// cudaperf-expect: wrong_answer
// Multiplies with TF32 tensor-core MMA (WMMA 16x16x8, inputs rounded to a 10-bit mantissa): the same
// rounding as fp16, so the same error, outside the task's tolerance.
#include <cuda_runtime.h>
#include <mma.h>
using namespace nvcuda;

__global__ void matmulTf32(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float a[16 * 8], b[8 * 16], c[16 * 16];
  int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16, lane = threadIdx.x;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.f);
  for (int k0 = 0; k0 < K; k0 += 8) {
    for (int l = lane; l < 128; l += 32) {
      int r = l / 8, k = l % 8;
      a[l] = row0 + r < M && k0 + k < K ? A[(long)(row0 + r) * K + k0 + k] : 0.f;
      int kb = l / 16, cb = l % 16;
      b[l] = k0 + kb < K && col0 + cb < N ? B[(long)(k0 + kb) * N + col0 + cb] : 0.f;
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 16);
    for (int i = 0; i < fa.num_elements; ++i)
      fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i)
      fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
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
  matmulTf32<<<dim3((N + 15) / 16, (M + 15) / 16), 32, 0, stream>>>(A, B, C, M, N, K);
}
