// RUN: %cudaperf-analyze --checks='-*,cuda-contended-atomic' %cuda-builtin-args %s 2>&1 >/dev/null | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze --checks='-*,cuda-contended-atomic' %cuda-builtin-args --format=json %s | FileCheck %s --check-prefix=JSON
// Flagged: every thread adding into one global address (32 lanes per address, every block on it),
// a per-block shared counter every thread updates with a float add. Not flagged: one atomic per
// block after a block reduction (the remedy), distinct addresses per lane, an integer counter
// (nvcc aggregates it per warp: 8 updates per block of 256), data-dependent addresses (a
// histogram: not judged).

__global__ void sumEveryElement(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, in[i]);
// CHECK: :[[@LINE-1]]:5: warning: global atomic: 32 lanes of a warp update one address (32 serialized updates per warp request), 256 threads of a block, and every block (4096 blocks) updates the same address: 1048576 serialized updates per launch; reduce within the warp (__shfl_down_sync) and the block (shared memory) first {{.*}} [cuda-contended-atomic]
// JSON: "check": "cuda-contended-atomic",
// JSON-NEXT: "column": 5,
// JSON-NEXT: "estimated_saving_us": 1044.48,
}

__global__ void sharedCounter(const float *in, float *out) {
  __shared__ float total;
  if (threadIdx.x == 0)
    total = 0;
  __syncthreads();
  atomicAdd(&total, in[blockIdx.x * blockDim.x + threadIdx.x]);
// CHECK: :[[@LINE-1]]:3: warning: shared atomic: 32 lanes of a warp update one address {{.*}} 256 threads of a block; reduce within the warp {{.*}} [cuda-contended-atomic]
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = total;
}

__global__ void onePerBlock(const float *in, float *out) {
  __shared__ float part[256];
  part[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, part[0]);
}

__global__ void perLane(float *out, const float *in) {
  atomicAdd(&out[blockIdx.x * blockDim.x + threadIdx.x], in[threadIdx.x]);
}

__global__ void intCounter(int *count, const float *in, float th) {
  if (in[blockIdx.x * blockDim.x + threadIdx.x] > th)
    atomicAdd(count, 1);
}

__global__ void histogram(const unsigned char *in, unsigned *bins) {
  atomicAdd(&bins[in[blockIdx.x * blockDim.x + threadIdx.x]], 1u);
}

int main() {
  float *p = nullptr;
  sumEveryElement<<<4096, 256>>>(p, p, 4096 * 256);
  onePerBlock<<<4096, 256>>>(p, p);
}
