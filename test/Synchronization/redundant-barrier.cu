// RUN: %cudaperf-analyze --checks='-*,cuda-redundant-barrier' %cuda-builtin-args %s 2>&1 >/dev/null | FileCheck %s -implicit-check-not='{{warning|error|note}}:'

__global__ void doubleBarrier(float *out, const float *in) {
  __shared__ float s[256];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  __syncthreads();
// CHECK: :[[@LINE-1]]:3: note: barrier orders no memory access{{.*}} [cuda-redundant-barrier]
  out[threadIdx.x] = s[255 - threadIdx.x];
}

__global__ void barrierAtStart(float *out, float x) {
  __syncthreads();
// CHECK: :[[@LINE-1]]:3: note: barrier orders no memory access{{.*}} [cuda-redundant-barrier]
  out[threadIdx.x] = x;
}

__global__ void onlyArithmeticBetween(float *out, const float *in) {
  __shared__ float s[256];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  float v = s[255 - threadIdx.x];
  __syncthreads();
  float w = v * v + 1.0f;
  __syncthreads();
// CHECK: :[[@LINE-1]]:3: note: barrier orders no memory access{{.*}} [cuda-redundant-barrier]
  out[threadIdx.x] = w;
}

// Not flagged: a barrier with shared traffic before it on one path only is still needed.
__global__ void oneBranchWrites(float *out, const float *in, int mode) {
  __shared__ float s[256];
  if (mode > 0)
    s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[255 - threadIdx.x];
}

int main() {
  float *p = nullptr;
  doubleBarrier<<<1, 256>>>(p, p);
  barrierAtStart<<<1, 256>>>(p, 1.0f);
  onlyArithmeticBetween<<<1, 256>>>(p, p);
  oneBranchWrites<<<1, 256>>>(p, p, 1);
}
