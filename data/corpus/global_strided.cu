// Strided global loads and stores of floats: lane i touches element i * S.
// Sectors per request = distinct 32-byte sectors among the 32 lanes' addresses: min(32, ceil(32 * 4 * S / 32)) for a
// 256-byte-aligned base, i.e. 4 * S up to S = 8, then 32. The unit-stride side of each kernel is 4.
#include "corpus_util.h"

// @kernel pattern=strided
__global__ void load_stride_2(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * 2];  // @ld.global 4B exp=8 @st.global 4B exp=4
}

// @kernel pattern=strided
__global__ void load_stride_3(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * 3];  // @ld.global 4B exp=12 @st.global 4B exp=4
}

// @kernel pattern=strided
__global__ void load_stride_4(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * 4];  // @ld.global 4B exp=16 @st.global 4B exp=4
}

// @kernel pattern=strided
__global__ void load_stride_5(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * 5];  // @ld.global 4B exp=20 @st.global 4B exp=4
}

// @kernel pattern=strided
__global__ void load_stride_8(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * 8];  // @ld.global 4B exp=32 @st.global 4B exp=4
}

// @kernel pattern=strided
__global__ void load_stride_16(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * 16];  // @ld.global 4B exp=32 @st.global 4B exp=4
}

// @kernel pattern=strided
__global__ void load_stride_32(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * 32];  // @ld.global 4B exp=32 @st.global 4B exp=4
}

// @kernel pattern=strided
__global__ void load_stride_33(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * 33];  // @ld.global 4B exp=32 @st.global 4B exp=4
}

// @kernel pattern=strided
__global__ void store_stride_2(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i * 2] = in[i];  // @ld.global 4B exp=4 @st.global 4B exp=8
}

// @kernel pattern=strided
__global__ void store_stride_32(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i * 32] = in[i];  // @ld.global 4B exp=4 @st.global 4B exp=32
}

// @kernel pattern=parameter-dependent; note=stride is a kernel parameter, launched with the literal 4 (expect the stride-4 value once the launch-site value is used)
__global__ void load_stride_param(const float* __restrict__ in, float* __restrict__ out, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * stride];  // @ld.global 4B exp=16 @st.global 4B exp=4
}

int main() {
  const int n = 1 << 20;
  float* in = deviceRandomFloats(static_cast<size_t>(n) * 33, 11);  // large enough for the largest stride
  float* out = deviceAlloc<float>(static_cast<size_t>(n) * 32);
  load_stride_2<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_stride_3<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_stride_4<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_stride_5<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_stride_8<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_stride_16<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_stride_32<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_stride_33<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  store_stride_2<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  store_stride_32<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_stride_param<<<(n + 255) / 256, 256>>>(in, out, n, 4);
  CHECK_LAUNCH();
  printf("global_strided: ok\n");
  return 0;
}
