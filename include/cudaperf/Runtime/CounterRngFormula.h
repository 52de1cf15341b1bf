// The input generator's formula, written once for the host reference (lib/Runtime/CounterRng.cpp)
// and the device kernel (lib/DeviceKernels/Generate.cu), which must agree bit for bit
// (docs/task-format.md, "Input distributions"). Counter-based: element i of an argument is a pure
// function of (set seed, argument index, i), so any element can be drawn on its own, in parallel.
//
// Bit equality needs every floating-point operation rounded once, in the same order, on both
// sides: on the device through the _rn intrinsics (nvcc would otherwise fuse a*b+c into an FMA),
// on the host by compiling the including file with -ffp-contract=off. ln and cos are our own
// (range reduction, then fixed polynomials in +, -, *, /), because libm's and CUDA's differ in
// the last bit. Include this only from those two files.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define CUDAPERF_RNG_FN __host__ __device__ inline
#else
#define CUDAPERF_RNG_FN inline
#endif

namespace cudaperf::rngformula {

constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull; // SplitMix64's increment

// SplitMix64's output function.
CUDAPERF_RNG_FN uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The key of argument `arg`'s stream within an input set.
CUDAPERF_RNG_FN uint64_t streamKey(uint64_t setSeed, uint64_t arg) { return mix64(setSeed + (arg + 1) * kGamma); }

// The n-th 64-bit draw of a stream: SplitMix64's n-th output from state `key`.
CUDAPERF_RNG_FN uint64_t draw(uint64_t key, uint64_t n) { return mix64(key + (n + 1) * kGamma); }

#if defined(__CUDA_ARCH__)
CUDAPERF_RNG_FN double mul(double a, double b) { return __dmul_rn(a, b); }
CUDAPERF_RNG_FN double add(double a, double b) { return __dadd_rn(a, b); }
CUDAPERF_RNG_FN double sub(double a, double b) { return __dsub_rn(a, b); }
CUDAPERF_RNG_FN double div(double a, double b) { return __ddiv_rn(a, b); }
CUDAPERF_RNG_FN double root(double a) { return __dsqrt_rn(a); }
CUDAPERF_RNG_FN double fromU64(uint64_t v) { return __ull2double_rn(v); }
CUDAPERF_RNG_FN uint64_t bitsOf(double d) { return uint64_t(__double_as_longlong(d)); }
CUDAPERF_RNG_FN double fromBits(uint64_t b) { return __longlong_as_double((long long)b); }
#else
inline double mul(double a, double b) { return a * b; }
inline double add(double a, double b) { return a + b; }
inline double sub(double a, double b) { return a - b; }
inline double div(double a, double b) { return a / b; }
inline double root(double a) { return std::sqrt(a); }
inline double fromU64(uint64_t v) { return double(v); }
inline uint64_t bitsOf(double d) { uint64_t b; std::memcpy(&b, &d, 8); return b; }
inline double fromBits(uint64_t b) { double d; std::memcpy(&d, &b, 8); return d; }
#endif

// [0, 1) with 53 random bits; exact (both steps are exact in double).
CUDAPERF_RNG_FN double unitHalfOpen(uint64_t bits) { return mul(fromU64(bits >> 11), 0x1.0p-53); }
// (0, 1]: never 0, so its logarithm is finite.
CUDAPERF_RNG_FN double unitPositive(uint64_t bits) { return mul(fromU64((bits >> 11) + 1), 0x1.0p-53); }

// Natural logarithm of a positive normal double: x = 2^e * m with m in [sqrt(1/2), sqrt(2)),
// ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...) with s = (m - 1) / (m + 1), |s| <= 0.1716;
// terms to s^23 leave < 1e-17.
CUDAPERF_RNG_FN double ln(double x) {
  uint64_t b = bitsOf(x);
  int e = int((b >> 52) & 0x7FF) - 1023;
  double m = fromBits((b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull); // [1, 2)
  if (m > 1.4142135623730951) {
    m = mul(m, 0.5);
    e += 1;
  }
  double s = div(sub(m, 1.0), add(m, 1.0));
  double s2 = mul(s, s);
  // 1/k for odd k, folded by the compiler (the same IEEE constants on both sides).
  const double inv[12] = {1.0,      1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,  1.0 / 11,
                          1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21, 1.0 / 23};
  double p = inv[11];
  for (int k = 10; k >= 0; --k)
    p = add(inv[k], mul(s2, p));
  return add(mul(double(e), 0.6931471805599453), mul(mul(2.0, s), p));
}

// cos(2 pi u) for u in [0, 1): the quadrant from 4u (exact), then Taylor series of cos and
// sin on [0, pi/2) to degree 22/23 (remainder < 2e-17).
CUDAPERF_RNG_FN double cos2pi(double u) {
  double t = mul(u, 4.0);
  int q = int(t);
  double x = mul(sub(t, double(q)), 1.5707963267948966); // [0, pi/2)
  double x2 = mul(x, x);
  // cos: sum (-1)^n x^2n / (2n)!; sin: x * sum (-1)^n x^2n / (2n+1)!; by Horner from n = 11.
  const double cosCoeff[12] = {1.0,
                               -1.0 / 2,
                               1.0 / 24,
                               -1.0 / 720,
                               1.0 / 40320,
                               -1.0 / 3628800,
                               1.0 / 479001600,
                               -1.0 / 87178291200.0,
                               1.0 / 20922789888000.0,
                               -1.0 / 6402373705728000.0,
                               1.0 / 2432902008176640000.0,
                               -1.0 / 1124000727777607680000.0};
  const double sinCoeff[12] = {1.0,
                               -1.0 / 6,
                               1.0 / 120,
                               -1.0 / 5040,
                               1.0 / 362880,
                               -1.0 / 39916800,
                               1.0 / 6227020800.0,
                               -1.0 / 1307674368000.0,
                               1.0 / 355687428096000.0,
                               -1.0 / 121645100408832000.0,
                               1.0 / 51090942171709440000.0,
                               -1.0 / 25852016738884976640000.0};
  double c = cosCoeff[11], s = sinCoeff[11];
  for (int n = 10; n >= 0; --n) {
    c = add(cosCoeff[n], mul(x2, c));
    s = add(sinCoeff[n], mul(x2, s));
  }
  s = mul(x, s);
  switch (q & 3) {
  case 0: return c;
  case 1: return -s;
  case 2: return -c;
  default: return s;
  }
}

// Distribution kinds and element types, numbered as runtime::Distribution::Kind and runtime::Dtype.
enum : int { kUniform = 0, kNormal = 1, kConstant = 2 };
enum : int { kF32 = 0, kF64 = 1, kI32 = 2, kI64 = 3, kU32 = 4, kU8 = 5 };

CUDAPERF_RNG_FN bool isFloatType(int dtype) { return dtype == kF32 || dtype == kF64; }

// Element i of a floating-point argument, before rounding to its type.
CUDAPERF_RNG_FN double floatElement(int kind, double a, double b, uint64_t key, uint64_t i) {
  if (kind == kConstant)
    return a;
  if (kind == kNormal) {
    double u1 = unitPositive(draw(key, 2 * i)), u2 = unitHalfOpen(draw(key, 2 * i + 1));
    double z = mul(root(mul(-2.0, ln(u1))), cos2pi(u2));
    return add(a, mul(b, z));
  }
  return add(a, mul(sub(b, a), unitHalfOpen(draw(key, i))));
}

// Element i of an integer argument: uniform on [a, b] (both included), or the constant.
CUDAPERF_RNG_FN int64_t integerElement(int kind, double a, double b, uint64_t key, uint64_t i) {
  int64_t lo = int64_t(a);
  if (kind != kUniform)
    return lo;
  uint64_t span = uint64_t(int64_t(b) - lo) + 1; // 0: the whole 64-bit range
  uint64_t bits = draw(key, i);
  return lo + int64_t(span ? bits % span : bits);
}

// Writes element i of an argument of type dtype into base[slot].
CUDAPERF_RNG_FN void storeElement(void *base, uint64_t slot, int dtype, uint64_t i, int kind, double a, double b,
                                  uint64_t key) {
  if (isFloatType(dtype)) {
    double v = floatElement(kind, a, b, key, i);
    if (dtype == kF64) {
      static_cast<double *>(base)[slot] = v;
    } else {
#if defined(__CUDA_ARCH__)
      static_cast<float *>(base)[slot] = __double2float_rn(v);
#else
      static_cast<float *>(base)[slot] = float(v);
#endif
    }
    return;
  }
  int64_t v = integerElement(kind, a, b, key, i);
  switch (dtype) {
  case kI32: static_cast<int32_t *>(base)[slot] = int32_t(v); break;
  case kI64: static_cast<int64_t *>(base)[slot] = v; break;
  case kU32: static_cast<uint32_t *>(base)[slot] = uint32_t(v); break;
  default: static_cast<uint8_t *>(base)[slot] = uint8_t(v); break;
  }
}

} // namespace cudaperf::rngformula
