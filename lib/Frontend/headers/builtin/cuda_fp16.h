/* cudaperf built-in header: half precision for files analysed without a CUDA toolkit.
 * __half and __half2 are built on clang's _Float16, so arithmetic appears in the device IR as fp16
 * operations (what the work analysis counts). Covers the common conversions and arithmetic
 * intrinsics; not the whole of the toolkit's cuda_fp16.h. */
#ifndef CUDAPERF_CUDA_FP16_H
#define CUDAPERF_CUDA_FP16_H
#include "cudaperf_cuda_builtin.h"

#define CUDAPERF_HD static __host__ __device__ __forceinline__
struct __half {
  _Float16 v;
  __half() = default;
  __host__ __device__ constexpr __half(_Float16 x) : v(x) {}
  __host__ __device__ __half(float x) : v((_Float16)x) {}
  __host__ __device__ __half(double x) : v((_Float16)x) {}
  __host__ __device__ __half(int x) : v((_Float16)x) {}
  __host__ __device__ operator float() const { return (float)v; }
};
struct __align__(4) __half2 {
  __half x, y;
};
typedef __half half;
typedef __half2 half2;

CUDAPERF_HD __half __float2half(float f) { return __half((_Float16)f); }
CUDAPERF_HD __half __float2half_rn(float f) { return __half((_Float16)f); }
CUDAPERF_HD float __half2float(__half h) { return (float)h.v; }
CUDAPERF_HD __half __int2half_rn(int i) { return __half((_Float16)i); }
CUDAPERF_HD __half2 __floats2half2_rn(float a, float b) { return __half2{__half((_Float16)a), __half((_Float16)b)}; }
CUDAPERF_HD __half2 __float2half2_rn(float a) { return __floats2half2_rn(a, a); }
CUDAPERF_HD __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
CUDAPERF_HD __half2 __half2half2(__half a) { return __half2{a, a}; }
CUDAPERF_HD float __low2float(__half2 h) { return (float)h.x.v; }
CUDAPERF_HD float __high2float(__half2 h) { return (float)h.y.v; }
CUDAPERF_HD __half __low2half(__half2 h) { return h.x; }
CUDAPERF_HD __half __high2half(__half2 h) { return h.y; }

CUDAPERF_HD __half __hadd(__half a, __half b) { return __half((_Float16)(a.v + b.v)); }
CUDAPERF_HD __half __hsub(__half a, __half b) { return __half((_Float16)(a.v - b.v)); }
CUDAPERF_HD __half __hmul(__half a, __half b) { return __half((_Float16)(a.v * b.v)); }
CUDAPERF_HD __half __hdiv(__half a, __half b) { return __half((_Float16)(a.v / b.v)); }
CUDAPERF_HD __half __hneg(__half a) { return __half((_Float16)(-a.v)); }
CUDAPERF_HD __half __hfma(__half a, __half b, __half c) { return __half((_Float16)__builtin_fmaf16(a.v, b.v, c.v)); }
CUDAPERF_HD bool __hlt(__half a, __half b) { return a.v < b.v; }
CUDAPERF_HD bool __hgt(__half a, __half b) { return a.v > b.v; }
CUDAPERF_HD __half __hmax(__half a, __half b) { return a.v > b.v ? a : b; }
CUDAPERF_HD __half __hmin(__half a, __half b) { return a.v < b.v ? a : b; }
CUDAPERF_HD __half2 __hadd2(__half2 a, __half2 b) { return __half2{__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
CUDAPERF_HD __half2 __hsub2(__half2 a, __half2 b) { return __half2{__hsub(a.x, b.x), __hsub(a.y, b.y)}; }
CUDAPERF_HD __half2 __hmul2(__half2 a, __half2 b) { return __half2{__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
CUDAPERF_HD __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }

CUDAPERF_HD __half operator+(__half a, __half b) { return __hadd(a, b); }
CUDAPERF_HD __half operator-(__half a, __half b) { return __hsub(a, b); }
CUDAPERF_HD __half operator*(__half a, __half b) { return __hmul(a, b); }
CUDAPERF_HD __half operator/(__half a, __half b) { return __hdiv(a, b); }
CUDAPERF_HD __half operator-(__half a) { return __hneg(a); }
CUDAPERF_HD __half &operator+=(__half &a, __half b) { a = __hadd(a, b); return a; }
CUDAPERF_HD __half &operator*=(__half &a, __half b) { a = __hmul(a, b); return a; }
CUDAPERF_HD __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
CUDAPERF_HD __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
#undef CUDAPERF_HD
#endif
