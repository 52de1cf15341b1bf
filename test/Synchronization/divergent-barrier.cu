// RUN: %cudaperf-analyze --checks='-*,cuda-*-barrier' %cuda-builtin-args %s 2>&1 >/dev/null | FileCheck %s -implicit-check-not='{{warning|error}}:'
// Flagged: barriers under conditions on threadIdx, the lane, or per-thread data, directly, through
// arithmetic, in loops with thread-dependent trip counts, and after a thread-dependent return.
// Not flagged: conditions on blockIdx, blockDim, gridDim, parameters and data loaded at a uniform
// address; an early return of out-of-range threads after the last barrier.

__global__ void onThreadIdx(float *p) {
  __shared__ float s[256];
  s[threadIdx.x] = p[threadIdx.x];
  if (threadIdx.x < 128) {
    __syncthreads();
// CHECK: :[[@LINE-1]]:5: error: barrier is executed under the thread-dependent condition at line [[@LINE-2]]{{.*}} [cuda-divergent-barrier]
    p[threadIdx.x] = s[threadIdx.x + 1];
  }
}

__global__ void onLaneArithmetic(float *p) {
  __shared__ float s[256];
  int lane = threadIdx.x & 31;
  s[threadIdx.x] = p[threadIdx.x];
  if (lane * 3 + 1 > 40)
    __syncthreads();
// CHECK: :[[@LINE-1]]:5: error: barrier is executed under the thread-dependent condition {{.*}} [cuda-divergent-barrier]
  p[threadIdx.x] = s[threadIdx.x];
}

__global__ void onLoadedData(float *p, const int *flags) {
  __shared__ float s[256];
  s[threadIdx.x] = p[threadIdx.x];
  if (flags[threadIdx.x] != 0)
    __syncthreads();
// CHECK: :[[@LINE-1]]:5: error: barrier is executed under {{.*}} [cuda-divergent-barrier]
  p[threadIdx.x] = s[threadIdx.x];
}

__global__ void threadDependentTripCount(float *p, int n) {
  __shared__ float s[256];
  for (int i = threadIdx.x; i < n; i += 100) {
    s[threadIdx.x] = p[i];
    __syncthreads();
// CHECK: :[[@LINE-1]]:5: error: barrier is executed under {{.*}} [cuda-divergent-barrier]
    p[i] = s[(threadIdx.x + 1) % 256];
  }
}

__global__ void returnBeforeBarrier(float *p, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  s[threadIdx.x] = p[i];
  __syncthreads();
// CHECK: :[[@LINE-1]]:3: error: barrier is executed under {{.*}} [cuda-divergent-barrier]
  p[i] = s[255 - threadIdx.x];
}

// ---- not flagged -------------------------------------------------------------------------------

__global__ void uniformConditions(float *p, int n, const int *mode) {
  __shared__ float s[256];
  s[threadIdx.x] = p[threadIdx.x];
  if (blockIdx.x == 0 && blockDim.x == 256 && gridDim.x > 1 && n > 4)
    __syncthreads();
  if (mode[blockIdx.x] == 3) // every thread of the block loads the same value
    __syncthreads();
  p[threadIdx.x] = s[threadIdx.x];
}

__global__ void uniformLoop(float *out, const float *in, int n) {
  __shared__ float s[256];
  for (int base = 0; base < n; base += blockDim.x) {
    s[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = s[255 - threadIdx.x];
    __syncthreads();
  }
}

__global__ void returnAfterLastBarrier(float *p, int n) {
  __shared__ float s[256];
  s[threadIdx.x] = p[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  p[i] = s[255 - threadIdx.x];
}

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

// A thread-strided loop before a blockDim-halving reduction: the optimiser reads blockDim on both
// sides of the strided loop's guard and merges the copies with a phi, which is still uniform.
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

int main() {
  float *p = nullptr;
  const int *flags = nullptr;
  onThreadIdx<<<1, 256>>>(p);
  onLaneArithmetic<<<1, 256>>>(p);
  onLoadedData<<<1, 256>>>(p, flags);
  threadDependentTripCount<<<1, 256>>>(p, 1000);
  returnBeforeBarrier<<<4, 256>>>(p, 1000);
  uniformConditions<<<4, 256>>>(p, 1000, flags);
  uniformLoop<<<4, 256>>>(p, p, 1024);
  returnAfterLastBarrier<<<4, 256>>>(p, 1000);
  reductionBranchInsideLoop<<<4, 256>>>(p, p);
  stridedLoopThenReduction<<<4, 256>>>(p, p, 1024);
}
