// The evaluator's GPU kernels against their host references, bit for bit: the input generator
// (runtime::drawElements), the output comparison (runtime::compareOutputs), the byte checks and
// the checksum. Skipped without a CUDA driver; scripts/gpu/eval-scale.sh runs it on the H200.
#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "GeneratorArguments.h"
#include "cudaperf/Runtime/CounterRng.h"
#include "cudaperf/Runtime/Inputs.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

using namespace cudaperf;
using namespace cudaperf::runtime;
namespace dk = cudaperf::devicekernels;

namespace {

class DeviceKernels : public testing::Test {
protected:
  void SetUp() override {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)
      GTEST_SKIP() << "no CUDA device";
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
    ASSERT_EQ(scratch_.init(stream_), cudaSuccess);
  }
  void TearDown() override {
    for (void *p : buffers_)
      cudaFree(p);
  }
  void *upload(const void *data, size_t bytes) {
    void *p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, bytes + 64), cudaSuccess);
    buffers_.push_back(p);
    EXPECT_EQ(cudaMemcpy(p, data, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    return p;
  }
  std::vector<unsigned char> download(const void *p, size_t bytes) {
    std::vector<unsigned char> out(bytes);
    EXPECT_EQ(cudaMemcpy(out.data(), p, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
  }

  cudaStream_t stream_ = nullptr;
  dk::DeviceScratch scratch_;
  std::vector<void *> buffers_;
};

} // namespace

TEST_F(DeviceKernels, PreloadLoadsEveryKernelAndTheyStillRun) {
  ASSERT_EQ(dk::preloadKernels(), cudaSuccess);
  EXPECT_EQ(dk::preloadKernels(), cudaSuccess) << "a second preload is harmless";
  std::vector<unsigned char> bytes(4096, 7);
  int64_t index = 0;
  ASSERT_EQ(dk::firstByteNotEqual(scratch_, upload(bytes.data(), bytes.size()), bytes.size(), 7, index), cudaSuccess);
  EXPECT_EQ(index, -1);
}

TEST_F(DeviceKernels, GeneratorMatchesTheHostReferenceBitForBit) {
  using K = Distribution::Kind;
  struct Case { Dtype d; K k; double a, b; };
  std::vector<Case> cases = {{Dtype::F32, K::Uniform, -1, 1},     {Dtype::F32, K::Normal, 0, 1},
                             {Dtype::F32, K::Normal, -3.5, 0.01}, {Dtype::F64, K::Normal, 2, 3},
                             {Dtype::F64, K::Uniform, -1e6, 1e-3}, {Dtype::F32, K::Constant, 0.25, 0},
                             {Dtype::I32, K::Uniform, -50, 49},   {Dtype::I64, K::Uniform, -4e12, 4e12},
                             {Dtype::U32, K::Uniform, 0, 4e9},    {Dtype::U8, K::Uniform, 0, 255},
                             {Dtype::I32, K::Constant, 7, 0}};
  const uint64_t n = 1000003; // not a multiple of any block size
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c) + " " + dtypeName(cases[c].d));
    ElementStream s = elementStream(pointerArgument(cases[c].d, cases[c].k, cases[c].a, cases[c].b), c, 0x1234567 + c);
    size_t bytes = n * dtypeSize(s.dtype);
    std::vector<unsigned char> want(bytes);
    drawElements(s, 0, n, want.data());
    void *dev = nullptr;
    ASSERT_EQ(cudaMalloc(&dev, bytes), cudaSuccess);
    buffers_.push_back(dev);
    dk::FillSpec spec{int(s.dtype), int(s.kind), s.a, s.b, s.key};
    ASSERT_EQ(dk::fillElements(dev, n, spec, stream_), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    std::vector<unsigned char> got = download(dev, bytes);
    size_t firstBad = 0;
    while (firstBad < bytes && got[firstBad] == want[firstBad])
      ++firstBad;
    EXPECT_EQ(firstBad, bytes) << "first differing byte " << firstBad << " (element "
                               << firstBad / dtypeSize(s.dtype) << ")";
  }
}

// Fresh timed-call inputs (FillSpec::fast): normal deviates of the task's mean and deviation, the
// same bytes for the same key (the oracle's inputs are the candidate's), others for another key,
// and every other kind still the host reference's bits.
TEST_F(DeviceKernels, FastFillDrawsTheSameDistributionAndRepeatsPerKey) {
  using K = Distribution::Kind;
  const uint64_t n = 1 << 20;
  for (Dtype d : {Dtype::F32, Dtype::F64}) {
    SCOPED_TRACE(dtypeName(d));
    ElementStream s = elementStream(pointerArgument(d, K::Normal, 1.5, 2.0), 0, 77);
    size_t bytes = n * dtypeSize(d);
    std::vector<std::vector<unsigned char>> got;
    for (uint64_t key : {s.key, s.key, s.key + 1}) {
      void *dev = nullptr;
      ASSERT_EQ(cudaMalloc(&dev, bytes), cudaSuccess);
      buffers_.push_back(dev);
      dk::FillSpec spec{int(s.dtype), int(s.kind), s.a, s.b, key, /*fast=*/true};
      ASSERT_EQ(dk::fillElements(dev, n, spec, stream_), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
      got.push_back(download(dev, bytes));
    }
    EXPECT_EQ(got[0], got[1]);
    auto value = [&](const std::vector<unsigned char> &v, uint64_t i) {
      if (d == Dtype::F32) {
        float f;
        std::memcpy(&f, v.data() + 4 * i, 4);
        return double(f);
      }
      double x;
      std::memcpy(&x, v.data() + 8 * i, 8);
      return x;
    };
    double sum = 0, sq = 0;
    uint64_t same = 0, below = 0;
    for (uint64_t i = 0; i < n; ++i) {
      double x = value(got[0], i);
      ASSERT_TRUE(std::isfinite(x)) << i;
      sum += x;
      sq += x * x;
      same += x == value(got[2], i);
      below += x < 1.5 - 2.0; // one deviation below the mean: 15.87%
    }
    double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    EXPECT_NEAR(mean, 1.5, 0.01);
    EXPECT_NEAR(sd, 2.0, 0.01);
    EXPECT_NEAR(double(below) / n, 0.1587, 0.002);
    EXPECT_LT(same, n / 1000);
  }
  // Kinds other than normal ignore the flag: the host reference's bits.
  ElementStream u = elementStream(pointerArgument(Dtype::F32, K::Uniform, -1, 1), 3, 9);
  std::vector<unsigned char> want(4 * 1000);
  drawElements(u, 0, 1000, want.data());
  void *dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, want.size()), cudaSuccess);
  buffers_.push_back(dev);
  dk::FillSpec spec{int(u.dtype), int(u.kind), u.a, u.b, u.key, /*fast=*/true};
  ASSERT_EQ(dk::fillElements(dev, 1000, spec, stream_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(download(dev, want.size()), want);
}

TEST_F(DeviceKernels, ComparisonMatchesTheHostRule) {
  Task t = parseTask(R"({"name": "t", "kind": "c-to-cuda", "entry": "f",
    "args": [{"name": "o", "type": "pointer", "dtype": "f32", "access": "out", "count": "n"},
             {"name": "n", "type": "scalar", "dtype": "i32"}],
    "configs": [{"n": 200000}], "tolerances": {"f32": {"atol": 1e-4, "rtol": 1e-3}}})",
                     "/x", false);
  const size_t n = 200000;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<float> u(-10, 10);
  for (int variant = 0; variant < 6; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    std::vector<float> expected(n), got(n);
    for (size_t i = 0; i < n; ++i)
      expected[i] = got[i] = u(rng);
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    if (variant == 1)
      for (size_t i = 0; i < n; i += 997)
        got[i] += 0.5f;
    if (variant == 2) { // two elements off by the same amount: the lower index is the worst
      got[150000] = expected[150000] + 1;
      got[70000] = expected[70000] + 1;
      expected[150000] = expected[70000];
      got[150000] = got[70000];
    }
    if (variant == 3) {
      got[5] = nan;
      got[6] = inf;
      expected[7] = inf;
      got[7] = inf;    // equal infinities pass
      expected[8] = nan; // NaN never passes, not even against NaN
      got[8] = nan;
      got[9] = -inf;
    }
    if (variant == 4)
      for (size_t i = 0; i < n; ++i)
        got[i] = nan; // the poison, unwritten
    if (variant == 5)
      got[n - 1] = expected[n - 1] * (1 + 2e-3f) + 1;
    std::vector<std::vector<unsigned char>> hg(2), he(2);
    hg[0].resize(n * 4);
    he[0].resize(n * 4);
    std::memcpy(hg[0].data(), got.data(), n * 4);
    std::memcpy(he[0].data(), expected.data(), n * 4);
    Mismatch m = compareOutputs(t, hg, he);
    dk::CompareResult r;
    dk::CompareSpec spec{int(Dtype::F32), 1e-4, 1e-3};
    ASSERT_EQ(dk::compareElements(scratch_, upload(got.data(), n * 4), upload(expected.data(), n * 4), n, spec, r),
              cudaSuccess);
    EXPECT_EQ(int64_t(r.badElements), m.badElements);
    EXPECT_EQ(int64_t(r.nanElements), m.nanElements);
    EXPECT_EQ(r.worstIndex, m.pass ? -1 : m.index);
    if (!m.pass) {
      EXPECT_TRUE(r.got == m.got || (std::isnan(r.got) && std::isnan(m.got)));
      EXPECT_TRUE(r.expected == m.expected || (std::isnan(r.expected) && std::isnan(m.expected)));
    }
  }
}

TEST_F(DeviceKernels, IntegerComparisonIsExact) {
  const size_t n = 4099;
  std::vector<int64_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i)
    a[i] = b[i] = int64_t(i) * 1000003 - (int64_t(1) << 40);
  b[4098] += 1;
  dk::CompareResult r;
  dk::CompareSpec spec{int(Dtype::I64), 0, 0};
  ASSERT_EQ(dk::compareElements(scratch_, upload(b.data(), n * 8), upload(a.data(), n * 8), n, spec, r), cudaSuccess);
  EXPECT_EQ(r.badElements, 1u);
  EXPECT_EQ(r.worstIndex, 4098);
  EXPECT_EQ(r.got - r.expected, 1.0);
}

TEST_F(DeviceKernels, ByteChecksFindTheFirstChange) {
  for (size_t bytes : {size_t(1), size_t(15), size_t(4096), size_t(1 << 20) + 13}) {
    SCOPED_TRACE(bytes);
    std::vector<unsigned char> a(bytes, 0xCD), b = a;
    void *da = upload(a.data(), bytes);
    int64_t index = 0;
    ASSERT_EQ(dk::firstByteNotEqual(scratch_, da, bytes, 0xCD, index), cudaSuccess);
    EXPECT_EQ(index, -1);
    for (size_t pos : {bytes - 1, bytes / 2, size_t(0)}) {
      b[pos] = static_cast<unsigned char>(a[pos] ^ 0x10); // set, not toggled: positions repeat when bytes < 3
      void *db = upload(b.data(), bytes);
      ASSERT_EQ(dk::firstDifferentByte(scratch_, da, db, bytes, index), cudaSuccess);
      EXPECT_EQ(index, int64_t(pos));
      ASSERT_EQ(dk::firstByteNotEqual(scratch_, db, bytes, 0xCD, index), cudaSuccess);
      EXPECT_EQ(index, int64_t(pos));
      // Misaligned start: the byte path.
      if (bytes > 2 && pos > 0) {
        ASSERT_EQ(dk::firstByteNotEqual(scratch_, static_cast<unsigned char *>(db) + 1, bytes - 1, 0xCD, index),
                  cudaSuccess);
        EXPECT_EQ(index, int64_t(pos) - 1);
      }
    }
  }
}

TEST_F(DeviceKernels, ChecksumMatchesItsDefinition) {
  const size_t bytes = (1 << 20) + 5;
  std::vector<unsigned char> a(bytes);
  for (size_t i = 0; i < bytes; ++i)
    a[i] = static_cast<unsigned char>(i * 131 + 7);
  uint64_t want = 0;
  for (size_t j = 0; j * 8 < bytes; ++j) {
    uint64_t w = 0;
    for (size_t k = 0; k < 8 && j * 8 + k < bytes; ++k)
      w |= uint64_t(a[j * 8 + k]) << (8 * k);
    want += generatorMix64(w + (j + 1) * 0x9E3779B97F4A7C15ull);
  }
  uint64_t got = 0;
  void *da = upload(a.data(), bytes);
  ASSERT_EQ(dk::checksumBytes(scratch_, da, bytes, got), cudaSuccess);
  EXPECT_EQ(got, want);
  a[bytes - 1] ^= 1;
  ASSERT_EQ(dk::checksumBytes(scratch_, upload(a.data(), bytes), bytes, got), cudaSuccess);
  EXPECT_NE(got, want);
}
