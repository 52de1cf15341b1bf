// Unit-stride global loads and stores for every access width: lane i touches element i.
// Expectation (sectors per request) = 32 lanes x element bytes / 32-byte sectors, at least 1.
// Annotations: "// @kernel" describes the kernel below it; "// @<op>.<space> <bytes>B exp=<x> [insts=<k>]" describes
// an access on that line: bytes per lane per instruction, expected sectors (global) or wavefronts (shared) per
// instruction, and how many instructions the access is expected to compile to (scripts/corpus/build-manifest.py reads them into manifest.json).
#include "corpus_util.h"

struct Vec3 { float x, y, z; };                    // 12 bytes, 4-byte aligned: three 32-bit accesses
struct __align__(16) Vec4A { float x, y, z, w; };  // 16 bytes, 16-byte aligned: one 128-bit access
struct Vec4U { float x, y, z, w; };                // 16 bytes, 4-byte aligned: four 32-bit accesses

// @kernel pattern=coalesced
__global__ void copy_char(const unsigned char* __restrict__ in, unsigned char* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;  // @ld.global 1B exp=1 @st.global 1B exp=1
}

// @kernel pattern=coalesced
__global__ void copy_short(const short* __restrict__ in, short* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;  // @ld.global 2B exp=2 @st.global 2B exp=2
}

// @kernel pattern=coalesced
__global__ void copy_float(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f;  // @ld.global 4B exp=4 @st.global 4B exp=4
}

// @kernel pattern=coalesced
__global__ void copy_double(const double* __restrict__ in, double* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0;  // @ld.global 8B exp=8 @st.global 8B exp=8
}

// @kernel pattern=coalesced
__global__ void copy_float2(const float2* __restrict__ in, float2* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float2 v = in[i];  // @ld.global 8B exp=8
    out[i] = make_float2(v.x * 2.0f, v.y * 2.0f);  // @st.global 8B exp=8
  }
}

// @kernel pattern=coalesced
__global__ void copy_float4(const float4* __restrict__ in, float4* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = in[i];  // @ld.global 16B exp=16
    out[i] = make_float4(v.x * 2.0f, v.y * 2.0f, v.z * 2.0f, v.w * 2.0f);  // @st.global 16B exp=16
  }
}

// @kernel pattern=coalesced; note=12-byte struct with 4-byte alignment: expected as three 32-bit loads and three 32-bit stores, each with lanes 12 bytes apart (384-byte span, 12 sectors)
__global__ void copy_vec3(const Vec3* __restrict__ in, Vec3* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];  // @ld.global 4B exp=12 insts=3 @st.global 4B exp=12 insts=3
}

// @kernel pattern=coalesced; note=16-byte struct declared __align__(16): one 128-bit load and store
__global__ void copy_vec4_aligned(const Vec4A* __restrict__ in, Vec4A* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];  // @ld.global 16B exp=16 @st.global 16B exp=16
}

// @kernel pattern=coalesced; note=16-byte struct with 4-byte alignment: expected as four 32-bit loads and stores, lanes 16 bytes apart (512-byte span, 16 sectors each)
__global__ void copy_vec4_unaligned(const Vec4U* __restrict__ in, Vec4U* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];  // @ld.global 4B exp=16 insts=4 @st.global 4B exp=16 insts=4
}

int main() {
  const int n = 1 << 22;
  {
    unsigned char* in = deviceRandomBytes(n, 1);
    unsigned char* out = deviceAlloc<unsigned char>(n);
    copy_char<<<(n + 255) / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  {
    short* in = reinterpret_cast<short*>(deviceRandomBytes(n * 2, 2));
    short* out = deviceAlloc<short>(n);
    copy_short<<<(n + 255) / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  {
    float* in = deviceRandomFloats(n, 3);
    float* out = deviceAlloc<float>(n);
    copy_float<<<(n + 255) / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  {
    double* in = deviceRandomDoubles(n, 4);
    double* out = deviceAlloc<double>(n);
    copy_double<<<(n + 255) / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  {
    float2* in = deviceRandomElements<float2>(n, 5);
    float2* out = deviceAlloc<float2>(n);
    copy_float2<<<(n + 255) / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  {
    float4* in = deviceRandomElements<float4>(n, 6);
    float4* out = deviceAlloc<float4>(n);
    copy_float4<<<(n + 255) / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  {
    Vec3* in = deviceRandomElements<Vec3>(n, 7);
    Vec3* out = deviceAlloc<Vec3>(n);
    copy_vec3<<<(n + 255) / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  {
    Vec4A* in = deviceRandomElements<Vec4A>(n, 8);
    Vec4A* out = deviceAlloc<Vec4A>(n);
    copy_vec4_aligned<<<(n + 255) / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  {
    Vec4U* in = deviceRandomElements<Vec4U>(n, 9);
    Vec4U* out = deviceAlloc<Vec4U>(n);
    copy_vec4_unaligned<<<(n + 255) / 256, 256>>>(in, out, n);
    CHECK_LAUNCH();
  }
  printf("global_unit_stride: ok\n");
  return 0;
}
