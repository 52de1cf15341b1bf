/* cudaperf built-in header: bfloat16 for files analysed without a CUDA toolkit, on clang's __bf16.
 * Covers conversions and basic arithmetic; not the whole of the toolkit's cuda_bf16.h. */
#ifndef CUDAPERF_CUDA_BF16_H
#define CUDAPERF_CUDA_BF16_H
#include "cudaperf_cuda_builtin.h"

#define CUDAPERF_HD static __host__ __device__ __forceinline__
struct __nv_bfloat16 {
  __bf16 v;
  __nv_bfloat16() = default;
  __host__ __device__ __nv_bfloat16(float x) : v((__bf16)x) {}
  __host__ __device__ operator float() const { return (float)v; }
};
struct __align__(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
};
CUDAPERF_HD __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
CUDAPERF_HD float __bfloat162float(__nv_bfloat16 h) { return (float)h.v; }
CUDAPERF_HD __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)(a.v + b.v)); }
CUDAPERF_HD __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)(a.v * b.v)); }
CUDAPERF_HD __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) { return __nv_bfloat16((float)(a.v * b.v + c.v)); }
#undef CUDAPERF_HD
#endif
