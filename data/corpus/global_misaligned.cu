// Misaligned unit-stride global accesses: a constant element offset shifts the warp's span off sector boundaries.
// A warp's 32 x 4 = 128 bytes starting 4 bytes into a sector touch 5 sectors instead of 4; an offset that is a
// multiple of 32 bytes costs nothing. Buffers have 64 extra elements so every offset stays in bounds.
#include "corpus_util.h"

// @kernel pattern=misaligned
__global__ void load_offset_1(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 1];  // @ld.global 4B exp=5 @st.global 4B exp=4
}

// @kernel pattern=misaligned
__global__ void load_offset_3(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 3];  // @ld.global 4B exp=5 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=offset of 8 floats = 32 bytes: sector-aligned, not 128-byte aligned
__global__ void load_offset_8(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 8];  // @ld.global 4B exp=4 @st.global 4B exp=4
}

// @kernel pattern=coalesced; note=offset of 32 floats = 128 bytes
__global__ void load_offset_32(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 32];  // @ld.global 4B exp=4 @st.global 4B exp=4
}

// @kernel pattern=misaligned
__global__ void store_offset_1(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i + 1] = in[i];  // @ld.global 4B exp=4 @st.global 4B exp=5
}

// @kernel pattern=misaligned; note=1-byte lanes offset by 1 byte: bytes 1..32 straddle two sectors
__global__ void load_char_offset_1(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 1] + 1;  // @ld.global 1B exp=2 @st.global 1B exp=1
}

// @kernel pattern=misaligned; note=2-byte lanes offset by 2 bytes: bytes 2..65 touch three sectors
__global__ void load_short_offset_1(const short* __restrict__ in, short* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 1] + 1;  // @ld.global 2B exp=3 @st.global 2B exp=2
}

// @kernel pattern=misaligned; note=8-byte lanes offset by 8 bytes: 256 bytes starting 8 bytes into a sector
__global__ void load_double_offset_1(const double* __restrict__ in, double* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + 1] * 2.0;  // @ld.global 8B exp=9 @st.global 8B exp=8
}

// @kernel pattern=misaligned; note=16-byte lanes offset by 16 bytes: 512 bytes starting mid-sector
__global__ void load_float4_offset_1(const float4* __restrict__ in, float4* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = in[i + 1];  // @ld.global 16B exp=17
    out[i] = make_float4(v.w, v.z, v.y, v.x);  // @st.global 16B exp=16
  }
}

// @kernel pattern=parameter-dependent; note=offset given in bytes as a kernel parameter, launched with the literal 16 (4 floats): expect 5 once the value is known
__global__ void load_byte_offset(const float* __restrict__ in, float* __restrict__ out, int n, int offsetBytes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float* shifted = reinterpret_cast<const float*>(reinterpret_cast<const char*>(in) + offsetBytes);
  if (i < n) out[i] = shifted[i];  // @ld.global 4B exp=5 @st.global 4B exp=4
}

int main() {
  const int n = 1 << 22;
  const int pad = 64;
  float* in = deviceRandomFloats(n + pad, 21);
  float* out = deviceAlloc<float>(n + pad);
  load_offset_1<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_offset_3<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_offset_8<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  load_offset_32<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  store_offset_1<<<(n + 255) / 256, 256>>>(in, out, n);
  CHECK_LAUNCH();
  {
    unsigned char* inBytes = deviceRandomBytes(n + pad, 22);
    unsigned char* outBytes = deviceAlloc<unsigned char>(n + pad);
    load_char_offset_1<<<(n + 255) / 256, 256>>>(inBytes, outBytes, n);
    CHECK_LAUNCH();
  }
  {
    short* inShorts = reinterpret_cast<short*>(deviceRandomBytes((n + pad) * 2, 23));
    short* outShorts = deviceAlloc<short>(n + pad);
    load_short_offset_1<<<(n + 255) / 256, 256>>>(inShorts, outShorts, n);
    CHECK_LAUNCH();
  }
  {
    double* inDoubles = deviceRandomDoubles(n + pad, 24);
    double* outDoubles = deviceAlloc<double>(n + pad);
    load_double_offset_1<<<(n + 255) / 256, 256>>>(inDoubles, outDoubles, n);
    CHECK_LAUNCH();
  }
  {
    float4* inVec = deviceRandomElements<float4>(n + pad, 25);
    float4* outVec = deviceAlloc<float4>(n + pad);
    load_float4_offset_1<<<(n + 255) / 256, 256>>>(inVec, outVec, n);
    CHECK_LAUNCH();
  }
  load_byte_offset<<<(n + 255) / 256, 256>>>(in, out, n, 16);
  CHECK_LAUNCH();
  printf("global_misaligned: ok\n");
  return 0;
}
