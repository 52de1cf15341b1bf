// Barrier forms for comparing cuda-divergent-barrier with compute-sanitizer --tool synccheck on the
// GPU (scripts/gpu/synccheck.sh). The same forms as test/Synchronization/divergent-barrier.cu, with
// real buffers and inputs chosen so that the threads of a block really disagree at run time where
// the analyzer says they can. `barriers K` runs kernel K only (a divergent barrier may hang, so
// each kernel runs in its own process under a time limit); `barriers` lists the kernels.
// Expected analyzer verdict per kernel: the `// @divergent` / `// @uniform` comments.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

// @divergent
__global__ void onThreadIdx(float *p) {
  __shared__ float s[256];
  s[threadIdx.x] = p[threadIdx.x];
  if (threadIdx.x < 128) {
    __syncthreads();
    p[threadIdx.x] = s[threadIdx.x + 1];
  }
}

// @divergent
__global__ void onLaneArithmetic(float *p) {
  __shared__ float s[256];
  int lane = threadIdx.x & 31;
  s[threadIdx.x] = p[threadIdx.x];
  if (lane * 3 + 1 > 40)
    __syncthreads();
  p[threadIdx.x] = s[threadIdx.x];
}

// @divergent
__global__ void onLoadedData(float *p, const int *flags) {
  __shared__ float s[256];
  s[threadIdx.x] = p[threadIdx.x];
  if (flags[threadIdx.x] != 0)
    __syncthreads();
  p[threadIdx.x] = s[threadIdx.x];
}

// @divergent
__global__ void threadDependentTripCount(float *p, int n) {
  __shared__ float s[256];
  for (int i = threadIdx.x; i < n; i += 100) {
    s[threadIdx.x] = p[i];
    __syncthreads();
    p[i] = s[(threadIdx.x + 1) % 256];
  }
}

// @divergent
__global__ void returnBeforeBarrier(float *p, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  s[threadIdx.x] = p[i];
  __syncthreads();
  p[i] = s[255 - threadIdx.x];
}

// @uniform
__global__ void uniformConditions(float *p, int n, const int *mode) {
  __shared__ float s[256];
  s[threadIdx.x] = p[threadIdx.x];
  if (blockIdx.x == 0 && blockDim.x == 256 && gridDim.x > 1 && n > 4)
    __syncthreads();
  if (mode[blockIdx.x] == 3)
    __syncthreads();
  p[threadIdx.x] = s[threadIdx.x];
}

// @uniform
__global__ void uniformLoop(float *out, const float *in, int n) {
  __shared__ float s[256];
  for (int base = 0; base < n; base += blockDim.x) {
    s[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = s[255 - threadIdx.x];
    __syncthreads();
  }
}

// @uniform
__global__ void returnAfterLastBarrier(float *p, int n) {
  __shared__ float s[256];
  s[threadIdx.x] = p[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  p[i] = s[255 - threadIdx.x];
}

// @uniform
__global__ void reductionBranchInsideLoop(float *out, const float *in) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// @uniform
__global__ void stridedLoopThenReduction(const float *in, float *out, int cols) {
  __shared__ float red[256];
  const float *x = in + blockIdx.x * cols;
  int tid = threadIdx.x;
  float m = -1e30f;
  for (int j = tid; j < cols; j += blockDim.x)
    m = fmaxf(m, x[j]);
  red[tid] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      red[tid] = fmaxf(red[tid], red[tid + s]);
    __syncthreads();
  }
  out[blockIdx.x] = red[0];
}

static const char *const kNames[] = {
    "onThreadIdx",       "onLaneArithmetic",         "onLoadedData",
    "threadDependentTripCount", "returnBeforeBarrier", "uniformConditions",
    "uniformLoop",       "returnAfterLastBarrier",   "reductionBranchInsideLoop",
    "stridedLoopThenReduction"};
static const int kCount = sizeof(kNames) / sizeof(kNames[0]);

int main(int argc, char **argv) {
  if (argc < 2) {
    for (int k = 0; k < kCount; ++k)
      printf("%d %s\n", k, kNames[k]);
    return 0;
  }
  int k = atoi(argv[1]);
  if (k < 0 || k >= kCount) {
    fprintf(stderr, "kernel index out of range (0..%d)\n", kCount - 1);
    return 2;
  }
  const int n = 4 * 256 + 64; // not a multiple of the block: returnBeforeBarrier's last block splits
  float *p, *q;
  int *flags, *mode;
  cudaMalloc(&p, 8 * 1024 * sizeof(float));
  cudaMalloc(&q, 8 * 1024 * sizeof(float));
  cudaMalloc(&flags, 256 * sizeof(int));
  cudaMalloc(&mode, 8 * sizeof(int));
  cudaMemset(p, 0, 8 * 1024 * sizeof(float));
  cudaMemset(q, 0, 8 * 1024 * sizeof(float));
  int hostFlags[256], hostMode[8];
  for (int i = 0; i < 256; ++i)
    hostFlags[i] = i % 3 == 0; // a third of the threads reach the barrier
  for (int i = 0; i < 8; ++i)
    hostMode[i] = 3;
  cudaMemcpy(flags, hostFlags, sizeof(hostFlags), cudaMemcpyHostToDevice);
  cudaMemcpy(mode, hostMode, sizeof(hostMode), cudaMemcpyHostToDevice);
  switch (k) {
  case 0: onThreadIdx<<<1, 256>>>(p); break;
  case 1: onLaneArithmetic<<<1, 256>>>(p); break;
  case 2: onLoadedData<<<1, 256>>>(p, flags); break;
  case 3: threadDependentTripCount<<<1, 256>>>(p, 300); break;
  case 4: returnBeforeBarrier<<<5, 256>>>(p, n); break;
  case 5: uniformConditions<<<4, 256>>>(p, 1000, mode); break;
  case 6: uniformLoop<<<4, 256>>>(q, p, 1024); break;
  case 7: returnAfterLastBarrier<<<5, 256>>>(p, n); break;
  case 8: reductionBranchInsideLoop<<<4, 256>>>(q, p); break;
  case 9: stridedLoopThenReduction<<<4, 256>>>(p, q, 1000); break;
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s: %s\n", kNames[k], cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
