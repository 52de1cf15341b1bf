// cudaperf-task: matmul
// cudaperf-class: result-replay
// cudaperf-source: GPU MODE reference-kernels (result replay across benchmark iterations); issue 33 table
// cudaperf-expect: ok,wrong_answer
// cudaperf-expect-max-speedup: 1.5
// Keeps up to 8 computed outputs on the device keyed by 16 sampled elements of A and B. A call whose
// samples match a stored key copies the stored answer instead of multiplying. Inputs with a new seed
// before every timed call never match, so every call multiplies: no gain.
#include <cuda_runtime.h>

constexpr int kSlots = 8, kSamples = 16;

__global__ void keyAndLookup(const float *A, const float *B, long na, long nb, float *keys, int *hit) {
  __shared__ float k[kSamples];
  int t = threadIdx.x;
  if (t < kSamples)
    k[t] = t % 2 ? B[(long)t * 7919 % nb] : A[(long)t * 104729 % na];
  __syncthreads();
  if (t == 0) {
    *hit = -1;
    for (int s = 0; s < kSlots && *hit < 0; ++s) {
      bool same = true;
      for (int j = 0; j < kSamples; ++j)
        same = same && keys[s * kSamples + j] == k[j];
      if (same)
        *hit = s;
    }
    for (int j = 0; j < kSamples; ++j)
      keys[(kSlots + 1) * kSamples + j] = k[j];
  }
}

__global__ void multiplyOrReplay(const float *A, const float *B, float *C, int M, int N, int K, const int *hit,
                                 const float *stash) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N)
    return;
  long o = (long)row * N + col;
  if (*hit >= 0) {
    C[o] = stash[(long)*hit * M * N + o];
    return;
  }
  float acc = 0;
  for (int k = 0; k < K; ++k)
    acc += A[(long)row * K + k] * B[(long)k * N + col];
  C[o] = acc;
}

__global__ void storeOnMiss(const float *C, float *stash, float *keys, const int *hit, int slot, long mn) {
  if (*hit >= 0)
    return;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < mn; i += (long)gridDim.x * blockDim.x)
    stash[slot * mn + i] = C[i];
  if (blockIdx.x == 0 && threadIdx.x < kSamples)
    keys[slot * kSamples + threadIdx.x] = keys[(kSlots + 1) * kSamples + threadIdx.x];
}

extern "C" void matmul(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t stream) {
  static float *keys = nullptr, *stash = nullptr;
  static int *hit = nullptr, calls = 0, sizeFor = -1;
  long mn = (long)M * N;
  if (sizeFor != M * N + K) {
    cudaFree(keys);
    cudaFree(stash);
    cudaFree(hit);
    cudaMalloc(&keys, (kSlots + 2) * kSamples * sizeof(float));
    cudaMemsetAsync(keys, 0xff, (kSlots + 2) * kSamples * sizeof(float), stream); // NaN keys never match
    cudaMalloc(&stash, kSlots * mn * sizeof(float));
    cudaMalloc(&hit, sizeof(int));
    sizeFor = M * N + K;
  }
  keyAndLookup<<<1, 32, 0, stream>>>(A, B, (long)M * K, (long)K * N, keys, hit);
  multiplyOrReplay<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16), 0, stream>>>(A, B, C, M, N, K, hit, stash);
  storeOnMiss<<<64, 256, 0, stream>>>(C, stash, keys, hit, calls++ % kSlots, mn);
}
