// The input generator's host reference (docs/task-format.md): the published SplitMix64 values,
// the accuracy of its own ln and cos, that any element can be drawn on its own, and that the
// distributions have the moments they should. The device kernel is compared with this reference
// bit for bit on the GPU (test/runtime/DeviceKernelsTest.cu).
#include "GeneratorArguments.h"
#include "cudaperf/Runtime/CounterRng.h"
#include "cudaperf/Runtime/Inputs.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

using namespace cudaperf::runtime;

TEST(CounterRng, SplitMix64KnownAnswers) {
  // SplitMix64 from state 0: its first outputs (Vigna's reference implementation).
  EXPECT_EQ(generatorDraw(0, 0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(generatorDraw(0, 1), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(generatorDraw(0, 2), 0x06C45D188009454Full);
  EXPECT_EQ(generatorMix64(0), 0u);
}

TEST(CounterRng, OwnLnAndCosAreAccurate) {
  double worstLn = 0, worstCos = 0;
  for (int k = 1; k <= 20000; ++k) {
    double x = std::pow(2.0, -53.0 * k / 20000.0) * (1 + 0.37 * std::sin(k)); // (0, 1.37]
    worstLn = std::max(worstLn, std::fabs(generatorLn(x) - std::log(x)));
    double u = (k - 1) / 20000.0;
    worstCos = std::max(worstCos, std::fabs(generatorCos2Pi(u) - std::cos(6.283185307179586 * u)));
  }
  EXPECT_LT(worstLn, 1e-14);
  EXPECT_LT(worstCos, 1e-15);
  EXPECT_EQ(generatorLn(1.0), 0.0);
  EXPECT_EQ(generatorCos2Pi(0.0), 1.0);
  EXPECT_EQ(generatorCos2Pi(0.5), -1.0);
}


TEST(CounterRng, AnyRangeOfElementsIsTheSameAsTheWhole) {
  for (Dtype d : {Dtype::F32, Dtype::F64, Dtype::I32, Dtype::I64, Dtype::U32, Dtype::U8}) {
    Distribution::Kind kind = dtypeIsFloat(d) ? Distribution::Kind::Normal : Distribution::Kind::Uniform;
    ElementStream s = elementStream(pointerArgument(d, kind, 0, 200), 3, 12345);
    size_t es = dtypeSize(d);
    std::vector<unsigned char> whole(1000 * es), part(300 * es);
    drawElements(s, 0, 1000, whole.data());
    drawElements(s, 500, 300, part.data());
    EXPECT_EQ(std::memcmp(whole.data() + 500 * es, part.data(), 300 * es), 0) << dtypeName(d);
  }
}

TEST(CounterRng, StreamsDifferByArgumentAndSeed) {
  Argument a = pointerArgument(Dtype::F32, Distribution::Kind::Uniform, -1, 1);
  std::vector<float> x(64), y(64), z(64);
  drawElements(elementStream(a, 0, 7), 0, 64, x.data());
  drawElements(elementStream(a, 1, 7), 0, 64, y.data());
  drawElements(elementStream(a, 0, 8), 0, 64, z.data());
  EXPECT_NE(x, y);
  EXPECT_NE(x, z);
}

TEST(CounterRng, DistributionsHaveTheirMoments) {
  const int n = 200000;
  std::vector<double> v(n);
  drawElements(elementStream(pointerArgument(Dtype::F64, Distribution::Kind::Normal, 3, 2), 0, 1), 0, n, v.data());
  double mean = 0, var = 0, tail = 0;
  for (double x : v)
    mean += x / n;
  for (double x : v) {
    var += (x - mean) * (x - mean) / n;
    tail += std::fabs(x - 3) > 2 * 1.96 ? 1.0 / n : 0;
  }
  EXPECT_NEAR(mean, 3, 0.02);
  EXPECT_NEAR(var, 4, 0.05);
  EXPECT_NEAR(tail, 0.05, 0.003); // 5% outside mean +- 1.96 sd

  drawElements(elementStream(pointerArgument(Dtype::F64, Distribution::Kind::Uniform, -1, 3), 0, 1), 0, n, v.data());
  double lo = 9, hi = -9;
  mean = 0;
  for (double x : v) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    mean += x / n;
  }
  EXPECT_GE(lo, -1);
  EXPECT_LT(hi, 3);
  EXPECT_NEAR(mean, 1, 0.01);

  std::vector<int32_t> k(n);
  drawElements(elementStream(pointerArgument(Dtype::I32, Distribution::Kind::Uniform, -2, 2), 0, 1), 0, n, k.data());
  int counts[5] = {};
  for (int32_t x : k) {
    ASSERT_TRUE(x >= -2 && x <= 2) << x;
    ++counts[x + 2];
  }
  for (int c : counts)
    EXPECT_NEAR(c, n / 5, n / 100);
}

TEST(CounterRng, HostInputsFollowTheFormula) {
  Task t = parseTask(R"({"name": "t", "kind": "c-to-cuda", "entry": "f",
    "args": [{"name": "a", "type": "pointer", "dtype": "f32", "access": "in", "count": "n"},
             {"name": "b", "type": "pointer", "dtype": "f32", "access": "out", "count": "n"},
             {"name": "n", "type": "scalar", "dtype": "i32"}],
    "configs": [{"n": 100}], "inputs": {"a": {"dist": "normal", "mean": 0, "std": 1}}})",
                     "/x", false);
  HostArgs h = makeHostArgs(t, t.configs[0], 99);
  std::vector<float> want(100);
  drawElements(elementStream(t.args[0], 0, 99), 0, 100, want.data());
  EXPECT_EQ(std::memcmp(h.buffers[0].data(), want.data(), 400), 0);
}
