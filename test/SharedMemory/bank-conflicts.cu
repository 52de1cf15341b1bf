// RUN: %cudaperf-analyze --checks='-*,cuda-shared-bank-conflict' %cuda-builtin-args %s 2>&1 >/dev/null | FileCheck %s -implicit-check-not='{{warning|error}}:'
// RUN: %cudaperf-analyze --format=json %cuda-builtin-args %s | %python %S/Inputs/shared_accesses.py | FileCheck %s --check-prefix=JSON

__global__ void strides(float *out, int k) {
  __shared__ float s[32 * 33];
  unsigned t = threadIdx.x;
  s[t] = k;
  __syncthreads();
  float a = s[t];
  float b = s[2 * t];
// CHECK: :[[@LINE-1]]:13: warning: shared load of 4-byte elements needs 2.00 wavefronts per warp request where 1 would do (2.00-way bank conflict): consecutive threadIdx.x are 8 bytes apart, so 2 lanes share a bank; pad the stride {{.*}} [cuda-shared-bank-conflict]
  float c = s[32 * t];
// CHECK: :[[@LINE-1]]:13: warning: shared load of 4-byte elements needs 32.00 wavefronts per warp request where 1 would do (32.00-way bank conflict): consecutive threadIdx.x are 128 bytes apart, so 32 lanes share a bank{{.*}} [cuda-shared-bank-conflict]
  float d = s[33 * t];
  float e = s[0];
  out[t] = a + b + c + d + e;
}

__global__ void tiles(float *out) {
  __shared__ float plain[32][32];
  __shared__ float padded[32][33];
  unsigned x = threadIdx.x, y = threadIdx.y;
  plain[y][x] = x;
  padded[y][x] = y;
  __syncthreads();
  out[y * 32 + x] = plain[x][y] + padded[x][y];
// CHECK: :[[@LINE-1]]:21: warning: shared load of 4-byte elements needs 32.00 wavefronts per warp request{{.*}}pad each row by one element (declare plain[32][33]) or swizzle the column index (col ^ row) [cuda-shared-bank-conflict]
}

__global__ void wide(double *out, float4 *out4) {
  __shared__ double d[64];
  __shared__ float4 f4[64];
  unsigned t = threadIdx.x;
  d[t] = t;
  f4[t] = make_float4(t, t, t, t);
  __syncthreads();
  out[t] = d[t];
  out4[t] = f4[t];
}

__global__ void dynamicShared(float *out) {
  extern __shared__ float buf[];
  buf[threadIdx.x * 4] = threadIdx.x;
// CHECK: :[[@LINE-1]]:24: warning: shared store of 4-byte elements needs 4.00 wavefronts{{.*}} [cuda-shared-bank-conflict]
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x];
}

int main() {
  float *p = nullptr;
  double *q = nullptr;
  float4 *q4 = nullptr;
  strides<<<1, 32>>>(p, 3);
  tiles<<<1, dim3(32, 32)>>>(p);
  wide<<<1, 64>>>(q, q4);
  dynamicShared<<<1, 256, 256 * 4 * sizeof(float)>>>(p);
}

// JSON: strides 7 store 4 conflict-free 1
// JSON: strides 9 load 4 conflict-free 1
// JSON: strides 10 load 4 bank-conflict 2
// JSON: strides 12 load 4 bank-conflict 32
// JSON: strides 14 load 4 conflict-free 1
// JSON: strides 15 load 4 broadcast 1
// JSON: tiles 23 store 4 conflict-free 1
// JSON: tiles 24 store 4 conflict-free 1
// JSON: tiles 26 load 4 bank-conflict 32
// JSON: tiles 26 load 4 conflict-free 1
// JSON: wide 34 store 8 conflict-free 2
// JSON: wide 35 store 16 conflict-free 4
// JSON: wide 37 load 8 conflict-free 2
// JSON: wide 38 load 16 conflict-free 4
// JSON: dynamicShared 43 store 4 bank-conflict 4
// JSON: dynamicShared 46 load 4 conflict-free 1
