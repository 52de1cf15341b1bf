// Half precision arithmetic with cuda_fp16.h intrinsics. Scalar __half operations are expected to compile to
// HADD2/HMUL2/HFMA2 with one half used; __half2 operations do two FLOP-pairs per instruction.
#include "corpus_util.h"

// @kernel pattern=broadcast; flops=2*1024*1024*1024; note=naive fp16 product with __hfma, N = 1024, 32x8 block; fp16 accumulation (precision is not the point)
__global__ void hgemm_naive_f16(const __half* __restrict__ a, const __half* __restrict__ b, __half* __restrict__ c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  __half sum = __float2half(0.0f);
  for (int k = 0; k < n; ++k) sum = __hfma(a[row * n + k], b[k * n + col], sum);  // @ld.global 2B exp=1 @ld.global 2B exp=2
  c[row * n + col] = sum;  // @st.global 2B exp=2
}

// @kernel pattern=coalesced; flops=3*16*4194304; note=y = alpha*x + beta*y with __hmul and __hadd, 16 times per element (2 HMUL + 1 HADD per step unless the compiler fuses a multiply and add into HFMA)
__global__ void haxpby_f16(const __half* __restrict__ x, __half* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half alpha = __float2half(0.75f);
  const __half beta = __float2half(0.25f);
  __half xv = x[i];  // @ld.global 2B exp=2
  __half yv = y[i];  // @ld.global 2B exp=2
  for (int r = 0; r < 16; ++r) yv = __hadd(__hmul(alpha, xv), __hmul(beta, yv));
  y[i] = yv;  // @st.global 2B exp=2
}

// @kernel pattern=coalesced; flops=2*64*4194304; note=Horner polynomial of degree 64 with __hfma (64 HFMA per thread)
__global__ void horner_f16(const __half* __restrict__ x, __half* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half xv = x[i];  // @ld.global 2B exp=2
  __half acc = __float2half(1.0f);
  const __half c = __float2half(0.5f);
  for (int k = 0; k < 64; ++k) acc = __hfma(acc, xv, c);
  y[i] = acc;  // @st.global 2B exp=2
}

// @kernel pattern=coalesced; flops=2*2*64*2097152; note=Horner polynomial on __half2 pairs with __hfma2 (64 HFMA2 per thread, 2 lanes each)
__global__ void horner_half2(const __half2* __restrict__ x, __half2* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 xv = x[i];  // @ld.global 4B exp=4
  __half2 acc = __float2half2_rn(1.0f);
  const __half2 c = __float2half2_rn(0.5f);
  for (int k = 0; k < 64; ++k) acc = __hfma2(acc, xv, c);
  y[i] = acc;  // @st.global 4B exp=4
}

int main() {
  {
    const int n = 1024;
    __half* a = deviceRandomHalves(n * n, 151);
    __half* b = deviceRandomHalves(n * n, 152);
    __half* c = deviceAlloc<__half>(n * n);
    dim3 block(32, 8);
    dim3 grid(n / 32, n / 8);
    hgemm_naive_f16<<<grid, block>>>(a, b, c, n);
    CHECK_LAUNCH();
  }
  {
    const int n = 1 << 22;
    __half* x = deviceRandomHalves(n, 153);
    __half* y = deviceRandomHalves(n, 154);
    haxpby_f16<<<(n + 255) / 256, 256>>>(x, y, n);
    CHECK_LAUNCH();
    horner_f16<<<(n + 255) / 256, 256>>>(x, y, n);
    CHECK_LAUNCH();
    const int pairs = n / 2;
    horner_half2<<<(pairs + 255) / 256, 256>>>(reinterpret_cast<const __half2*>(x), reinterpret_cast<__half2*>(y), pairs);
    CHECK_LAUNCH();
  }
  printf("compute_fp16: ok\n");
  return 0;
}
