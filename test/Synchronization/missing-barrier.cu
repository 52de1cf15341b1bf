// RUN: %cudaperf-analyze --checks='-*,cuda-missing-barrier' %cuda-builtin-args %s 2>&1 >/dev/null | FileCheck %s -implicit-check-not='{{warning|error}}:'
// Flagged: a shared read of a location another thread wrote with no barrier between, in the affine
// cases: a neighbour read, a tree reduction without a barrier in the loop, a tile read before the
// barrier that follows its load. Not flagged: the same forms with their barriers, a thread reading
// its own write, data-dependent indices (not judged).

__global__ void neighbourRead(float *out, const float *in) {
  __shared__ float s[257];
  s[threadIdx.x] = in[threadIdx.x];
  out[threadIdx.x] = s[threadIdx.x + 1];
// CHECK: :[[@LINE-1]]:22: warning: shared memory read here is written at line [[@LINE-2]] by another thread (thread (0) reads what thread (1) writes) {{.*}} [cuda-missing-barrier]
}

__global__ void reductionWithoutLoopBarrier(float *out, const float *in) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
// CHECK: :[[@LINE-1]]:15: warning: shared memory read here is written at line [[@LINE-1]] by another thread {{.*}} [cuda-missing-barrier]
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
// CHECK: :[[@LINE-1]]:23: warning: shared memory read here is written at line [[@LINE-5]] by another thread {{.*}} [cuda-missing-barrier]
}

__global__ void tileReadBeforeBarrier(float *c, const float *a, int n) {
  __shared__ float tile[16][16];
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    tile[threadIdx.y][threadIdx.x] = a[threadIdx.y * n + k0 + threadIdx.x];
    for (int k = 0; k < 16; ++k)
      acc += tile[threadIdx.y][k];
// CHECK: :[[@LINE-1]]:14: warning: shared memory read here is written at line [[@LINE-3]] by another thread {{.*}} [cuda-missing-barrier]
    __syncthreads();
  }
  c[threadIdx.y * 16 + threadIdx.x] = acc;
}

// ---- not flagged -------------------------------------------------------------------------------

__global__ void neighbourReadWithBarrier(float *out, const float *in) {
  __shared__ float s[257];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x + 1];
}

__global__ void ownWrite(float *out, const float *in) {
  __shared__ float s[256];
  s[threadIdx.x] = in[threadIdx.x] * 2.0f;
  out[threadIdx.x] = s[threadIdx.x] + 1.0f;
}

__global__ void reductionWithBarriers(float *out, const float *in) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned stride = 128; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void tiledWithBarriers(float *c, const float *a, int n) {
  __shared__ float tile[16][16];
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    tile[threadIdx.y][threadIdx.x] = a[threadIdx.y * n + k0 + threadIdx.x];
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      acc += tile[threadIdx.y][k];
    __syncthreads();
  }
  c[threadIdx.y * 16 + threadIdx.x] = acc;
}

__global__ void dataDependentIndex(float *out, const int *idx, const float *in) {
  __shared__ float s[256];
  s[threadIdx.x] = in[threadIdx.x];
  out[threadIdx.x] = s[idx[threadIdx.x] & 255];
}

int main() {
  float *p = nullptr;
  const int *idx = nullptr;
  neighbourRead<<<1, 256>>>(p, p);
  reductionWithoutLoopBarrier<<<8, 256>>>(p, p);
  tileReadBeforeBarrier<<<1, dim3(16, 16)>>>(p, p, 256);
  neighbourReadWithBarrier<<<1, 256>>>(p, p);
  ownWrite<<<1, 256>>>(p, p);
  reductionWithBarriers<<<8, 256>>>(p, p);
  tiledWithBarriers<<<1, dim3(16, 16)>>>(p, p, 256);
  dataDependentIndex<<<1, 256>>>(p, idx, p);
}
