// Input of order-by-cost.test: a strided load (small saving), a contended atomic (large saving) and
// a missing barrier (a race), in that source order.
__global__ void mixed(const float *in, float *out, float *sum) {
  __shared__ float s[257];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[2 * i];
  s[threadIdx.x] = v;
  out[i] = s[threadIdx.x + 1];
  atomicAdd(sum, v);
}

int main() {
  float *p = nullptr;
  mixed<<<4096, 256>>>(p, p, p);
}
