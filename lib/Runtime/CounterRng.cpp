// Compiled with -ffp-contract=off (lib/Runtime/CMakeLists.txt): the formula's operations must be
// rounded one at a time, as the device kernel's _rn intrinsics are.
#include "cudaperf/Runtime/CounterRng.h"
#include "cudaperf/Runtime/CounterRngFormula.h"

namespace cudaperf::runtime {

namespace rf = rngformula;

static_assert(int(Dtype::F32) == rf::kF32 && int(Dtype::F64) == rf::kF64 && int(Dtype::I32) == rf::kI32 &&
              int(Dtype::I64) == rf::kI64 && int(Dtype::U32) == rf::kU32 && int(Dtype::U8) == rf::kU8);
static_assert(int(Distribution::Kind::Uniform) == rf::kUniform && int(Distribution::Kind::Normal) == rf::kNormal &&
              int(Distribution::Kind::Constant) == rf::kConstant);

ElementStream elementStream(const Argument &arg, size_t argIndex, uint64_t setSeed) {
  ElementStream s;
  s.dtype = arg.dtype;
  s.kind = arg.distribution.kind;
  s.a = arg.distribution.a;
  s.b = arg.distribution.b;
  s.key = rf::streamKey(setSeed, argIndex);
  return s;
}

void drawElements(const ElementStream &s, uint64_t first, uint64_t count, void *out) {
  for (uint64_t k = 0; k < count; ++k)
    rf::storeElement(out, k, int(s.dtype), first + k, int(s.kind), s.a, s.b, s.key);
}

uint64_t generatorMix64(uint64_t z) { return rf::mix64(z); }
uint64_t generatorDraw(uint64_t key, uint64_t n) { return rf::draw(key, n); }
double generatorLn(double x) { return rf::ln(x); }
double generatorCos2Pi(double u) { return rf::cos2pi(u); }

} // namespace cudaperf::runtime
