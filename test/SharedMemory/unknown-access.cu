// RUN: %cudaperf-analyze --checks='-*,cudaperf-unknown-access' %cuda-builtin-args %s 2>&1 >/dev/null | FileCheck %s -implicit-check-not='{{warning|error|note}}:'
// What the analysis could not follow: the interleaved reduction's stride doubles each iteration,
// which the lane evaluator does not model, so s[t + stride] is `unknown`; one note per kernel names
// the access, its loop and why. Silent where every access was followed (the sequential reduction
// with a halving stride, whose counter is simulated).

__global__ void interleaved(float *out, const float *in) {
  extern __shared__ float s[];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (t % (2 * stride) == 0)
      s[t] += s[t + stride];
// CHECK: :[[@LINE-1]]:15: note: the analysis could not follow 1 memory access of 'interleaved': the shared load here in the loop at line [[@LINE-3]] (a loop variable changes by something other than a constant step each iteration (multiplied, shifted or divided, e.g. stride *= 2): its value per iteration is not modelled); their coalescing and bank conflicts are not judged [cudaperf-unknown-access]
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void sequential(float *out, const float *in) {
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

int main() {
  float *p = nullptr;
  interleaved<<<1024, 256, 1024>>>(p, p);
  sequential<<<1024, 256>>>(p, p);
}
