// 32x32 tiles staged through shared memory so both the read and the write are coalesced; the
// extra column (33) keeps the column-wise shared reads free of bank conflicts.
#include <cuda_runtime.h>

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;

__global__ void transposeTiled(const float *__restrict__ in, float *__restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  int c = blockIdx.x * kTile + threadIdx.x;
  int r0 = blockIdx.y * kTile;
  for (int k = threadIdx.y; k < kTile; k += kRowsPerPass) {
    int r = r0 + k;
    if (r < rows && c < cols)
      tile[k][threadIdx.x] = in[(long)r * cols + c];
  }
  __syncthreads();
  int outCol = r0 + threadIdx.x;          // column of out = row of in
  int outRow0 = blockIdx.x * kTile;       // row of out = column of in
  for (int k = threadIdx.y; k < kTile; k += kRowsPerPass) {
    int outRow = outRow0 + k;
    if (outRow < cols && outCol < rows)
      out[(long)outRow * rows + outCol] = tile[threadIdx.x][k];
  }
}

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream) {
  dim3 block(kTile, kRowsPerPass);
  dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transposeTiled<<<grid, block, 0, stream>>>(in, out, rows, cols);
}
