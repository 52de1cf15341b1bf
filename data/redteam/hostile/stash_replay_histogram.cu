// cudaperf-task: histogram
// cudaperf-class: result-replay
// cudaperf-source: GPU MODE reference-kernels (result replay); issue 33 table
// cudaperf-expect: ok,wrong_answer
// cudaperf-expect-max-speedup: 1.5
// Hashes 64 sampled input bytes on the device; if the hash matches the previous call's it copies
// the previous 256 counts (1 KiB) instead of reading all n bytes. A new seed for every timed call
// means the hash never matches.
#include <cuda_runtime.h>

__global__ void hashSample(const unsigned char *data, int n, unsigned long long *hashes, int *hit) {
  unsigned long long h = 1469598103934665603ull;
  for (int j = 0; j < 64; ++j)
    h = (h ^ data[(long)j * 2654435761u % n]) * 1099511628211ull;
  *hit = hashes[0] == h && hashes[1] == (unsigned long long)n;
  hashes[0] = h;
  hashes[1] = n;
}

__global__ void countOrSkip(const unsigned char *data, unsigned int *counts, int n, const int *hit) {
  if (*hit)
    return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&counts[data[i]], 1u);
}

__global__ void saveOrRestore(unsigned int *counts, unsigned int *saved, const int *hit, int phase) {
  int v = threadIdx.x;
  if (phase == 0 && *hit)
    counts[v] = saved[v];
  if (phase == 0 && !*hit)
    counts[v] = 0;
  if (phase == 1)
    saved[v] = counts[v];
}

extern "C" void histogram(const unsigned char *data, unsigned int *counts, int n, cudaStream_t stream) {
  static unsigned long long *hashes = nullptr;
  static unsigned int *saved = nullptr;
  static int *hit = nullptr;
  if (!hashes) {
    cudaMalloc(&hashes, 2 * sizeof(unsigned long long));
    cudaMemsetAsync(hashes, 0, 2 * sizeof(unsigned long long), stream);
    cudaMalloc(&saved, 256 * sizeof(unsigned int));
    cudaMalloc(&hit, sizeof(int));
  }
  hashSample<<<1, 1, 0, stream>>>(data, n, hashes, hit);
  saveOrRestore<<<1, 256, 0, stream>>>(counts, saved, hit, 0);
  countOrSkip<<<(n + 255) / 256, 256, 0, stream>>>(data, counts, n, hit);
  saveOrRestore<<<1, 256, 0, stream>>>(counts, saved, hit, 1);
}
