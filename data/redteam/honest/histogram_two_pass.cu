// cudaperf-task: histogram
// cudaperf-class: honest
// cudaperf-source: technique: two-pass privatized histogram without global atomics (per-block rows, then a column sum)
// cudaperf-expect: ok
// Pass 1: each block writes its 256 shared-memory counts to its own row of a scratch table; pass 2: 256
// threads sum the columns and write every count (no memset, no global atomics).
#include <cuda_runtime.h>

constexpr int kMaxBlocks = 512;

__global__ void histRows(const unsigned char *data, int n, unsigned int *table) {
  __shared__ unsigned int bins[256];
  for (int v = threadIdx.x; v < 256; v += blockDim.x)
    bins[v] = 0;
  __syncthreads();
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
  __syncthreads();
  for (int v = threadIdx.x; v < 256; v += blockDim.x)
    table[blockIdx.x * 256 + v] = bins[v];
}

__global__ void sumColumns(const unsigned int *table, int blocks, unsigned int *counts) {
  unsigned int s = 0;
  for (int b = 0; b < blocks; ++b)
    s += table[b * 256 + threadIdx.x];
  counts[threadIdx.x] = s;
}

extern "C" void histogram(const unsigned char *data, unsigned int *counts, int n, cudaStream_t stream) {
  static unsigned int *table = nullptr;
  if (!table)
    cudaMalloc(&table, kMaxBlocks * 256 * sizeof(unsigned int));
  int blocks = (n + 8191) / 8192;
  blocks = blocks < 1 ? 1 : (blocks < kMaxBlocks ? blocks : kMaxBlocks);
  histRows<<<blocks, 256, 0, stream>>>(data, n, table);
  sumColumns<<<1, 256, 0, stream>>>(table, blocks, counts);
}
