// Matrix transpose, naive and tiled: the classic coalescing example.
// The naive kernel reads rows (threadIdx.x walks contiguous memory) but writes columns: each warp's
// store touches 32 different rows. The tiled kernel stages a 32x32 tile in shared memory (padded
// to 33 columns against bank conflicts) so both the load and the store walk rows.
#include <cstdio>
#include <cuda_runtime.h>

constexpr int TILE = 32;

__global__ void transposeNaive(float *out, const float *in, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n)
    out[x * n + y] = in[y * n + x];
}

__global__ void transposeTiled(float *out, const float *in, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < n && y < n)
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < n && y < n)
    out[y * n + x] = tile[threadIdx.x][threadIdx.y];
}

int main() {
  const int n = 4096;
  const size_t bytes = size_t(n) * n * sizeof(float);
  float *in, *out;
  cudaMalloc(&in, bytes);
  cudaMalloc(&out, bytes);
  dim3 block(TILE, TILE);
  dim3 grid(n / TILE, n / TILE);
  transposeNaive<<<grid, block>>>(out, in, n);
  transposeTiled<<<grid, block>>>(out, in, n);
  cudaError_t err = cudaDeviceSynchronize();
  printf("%s\n", cudaGetErrorString(err));
  cudaFree(in);
  cudaFree(out);
  return err == cudaSuccess ? 0 : 1;
}
