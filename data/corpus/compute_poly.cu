// Arithmetic with exactly known operation counts: Horner polynomials (one FMA per step, trip count 64) and
// axpy-style kernels. These pin the FLOP counting rule (FMA = 2) against the thread-level SASS counters.
#include "corpus_util.h"

// @kernel pattern=coalesced; flops=2*64*4194304; note=64 FFMA per thread
__global__ void horner_f32(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xv = x[i];  // @ld.global 4B exp=4
  float acc = 1.0f;
  for (int k = 0; k < 64; ++k) acc = acc * xv + 0.5f;
  y[i] = acc;  // @st.global 4B exp=4
}

// @kernel pattern=coalesced; flops=2*64*4194304; note=64 DFMA per thread
__global__ void horner_f64(const double* __restrict__ x, double* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double xv = x[i];  // @ld.global 8B exp=8
  double acc = 1.0;
  for (int k = 0; k < 64; ++k) acc = acc * xv + 0.5;
  y[i] = acc;  // @st.global 8B exp=8
}

// @kernel pattern=coalesced; flops=2*4194304; note=y = a*x + y: one FFMA per element
__global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];  // @ld.global 4B exp=4 insts=2 @st.global 4B exp=4
}

// @kernel pattern=coalesced; flops=2*4194304; note=one DFMA per element
__global__ void daxpy(const double* __restrict__ x, double* __restrict__ y, double a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];  // @ld.global 8B exp=8 insts=2 @st.global 8B exp=8
}

// @kernel pattern=coalesced; flops=3*32*4194304; note=32 steps of b = b*c + a*0.75; c = c + b. a*0.75 is loop-invariant and hoisted, so each step is expected as one FFMA and one FADD (3 FLOP); checks contraction
__global__ void mul_add_chain_f32(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i];  // @ld.global 4B exp=4
  float b = a * 0.5f, c = a + 0.25f;
  for (int k = 0; k < 32; ++k) {
    b = b * c + a * 0.75f;
    c = c + b;
  }
  y[i] = b + c;  // @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=special functions (sinf, expf, sqrtf, division) with default flags: library sequences whose FFMA/FMUL counts the analysis must either model or report separately
__global__ void special_functions_f32(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];  // @ld.global 4B exp=4
  y[i] = sinf(v) + expf(v) + sqrtf(fabsf(v)) + 1.0f / (v + 2.0f);  // @st.global 4B exp=4
}

int main() {
  const int n = 1 << 22;
  float* x = deviceRandomFloats(n, 191);
  float* y = deviceRandomFloats(n, 192);
  double* xd = deviceRandomDoubles(n, 193);
  double* yd = deviceRandomDoubles(n, 194);
  horner_f32<<<(n + 255) / 256, 256>>>(x, y, n);
  CHECK_LAUNCH();
  horner_f64<<<(n + 255) / 256, 256>>>(xd, yd, n);
  CHECK_LAUNCH();
  saxpy<<<(n + 255) / 256, 256>>>(x, y, 1.5f, n);
  CHECK_LAUNCH();
  daxpy<<<(n + 255) / 256, 256>>>(xd, yd, 1.5, n);
  CHECK_LAUNCH();
  mul_add_chain_f32<<<(n + 255) / 256, 256>>>(x, y, n);
  CHECK_LAUNCH();
  special_functions_f32<<<(n + 255) / 256, 256>>>(x, y, n);
  CHECK_LAUNCH();
  printf("compute_poly: ok\n");
  return 0;
}
