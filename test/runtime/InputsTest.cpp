#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/Inputs.h"
#include "cudaperf/Runtime/Reference.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <set>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace cudaperf::runtime;

namespace {
Task vectorTask() {
  return parseTask(R"({"name": "t", "kind": "c-to-cuda", "entry": "f",
    "args": [{"name": "a", "type": "pointer", "dtype": "f32", "access": "in", "count": "n"},
             {"name": "k", "type": "pointer", "dtype": "i32", "access": "in", "count": "n"},
             {"name": "c", "type": "pointer", "dtype": "f32", "access": "out", "count": "n"},
             {"name": "h", "type": "pointer", "dtype": "u32", "access": "out", "count": "4"},
             {"name": "n", "type": "scalar", "dtype": "i32"}],
    "configs": [{"n": 1000}],
    "inputs": {"a": {"dist": "uniform", "min": 2, "max": 3}, "k": {"dist": "uniform", "min": -5, "max": 5}}})",
                   "/x", false);
}
float f32(const std::vector<unsigned char> &b, size_t i) {
  float v;
  std::memcpy(&v, &b[i * 4], 4);
  return v;
}
} // namespace

TEST(Inputs, SeededDistributionsAndPoison) {
  Task t = vectorTask();
  HostArgs a = makeHostArgs(t, t.configs[0], 7), b = makeHostArgs(t, t.configs[0], 7), c = makeHostArgs(t, t.configs[0], 8);
  EXPECT_EQ(a.buffers, b.buffers);
  EXPECT_NE(a.buffers[0], c.buffers[0]);
  std::set<int> seen;
  for (size_t i = 0; i < 1000; ++i) {
    float v = f32(a.buffers[0], i);
    EXPECT_TRUE(v >= 2 && v <= 3) << v;
    int k;
    std::memcpy(&k, &a.buffers[1][i * 4], 4);
    EXPECT_TRUE(k >= -5 && k <= 5);
    seen.insert(k);
    EXPECT_TRUE(std::isnan(f32(a.buffers[2], i))); // outputs start poisoned
  }
  EXPECT_EQ(seen.size(), 11u); // both ends of an integer range are drawn
  EXPECT_EQ(a.buffers[3], std::vector<unsigned char>(16, 0xA5));
  EXPECT_NE(inputSeed(1, 0, 0), inputSeed(1, 0, 1));
  EXPECT_NE(inputSeed(1, 0, 0), inputSeed(1, 1, 0));
}

TEST(Inputs, CompareFindsWorstElementAndNeverPassesNaN) {
  Task t = vectorTask();
  HostArgs want = makeHostArgs(t, t.configs[0], 1);
  std::vector<std::vector<unsigned char>> expected = want.buffers, got = want.buffers;
  for (size_t i = 0; i < 1000; ++i) {
    float v = float(i);
    std::memcpy(&expected[2][i * 4], &v, 4);
    std::memcpy(&got[2][i * 4], &v, 4);
  }
  std::memset(expected[3].data(), 0, 16);
  got[3] = expected[3];
  EXPECT_TRUE(compareOutputs(t, got, expected).pass);

  float close = 500.0f * (1 + 5e-5f), far = 10.5f;
  std::memcpy(&got[2][500 * 4], &close, 4); // inside 1e-4 + 1e-4 * 500
  EXPECT_TRUE(compareOutputs(t, got, expected).pass);
  std::memcpy(&got[2][10 * 4], &far, 4);
  Mismatch m = compareOutputs(t, got, expected);
  EXPECT_FALSE(m.pass);
  EXPECT_EQ(m.argument, "c");
  EXPECT_EQ(m.index, 10);
  EXPECT_FLOAT_EQ(m.got, 10.5f);
  EXPECT_FLOAT_EQ(m.expected, 10.0f);

  got[2] = expected[2];
  poisonBuffer(expected[2], Dtype::F32);
  poisonBuffer(got[2], Dtype::F32);
  m = compareOutputs(t, got, expected);
  EXPECT_FALSE(m.pass) << "NaN == NaN must not pass";
  EXPECT_EQ(m.nanElements, 1000);

  got = expected;
  got[3][0] ^= 1; // integer outputs are exact
  EXPECT_FALSE(compareOutputs(t, got, expected).pass);
}

TEST(Reference, BuildsAndComputesExampleTasks) {
  Toolchain tc = findToolchain();
  BuildOptions bo;
  bo.cacheDir = testing::TempDir() + "/cudaperf-ref-cache";
  for (const char *name : {"vector_add", "histogram", "softmax", "transpose", "matmul", "reduce_sum", "saxpy", "stencil2d"}) {
    SCOPED_TRACE(name);
    Task t = loadTask(std::string(CUDAPERF_SOURCE_DIR) + "/data/tasks/" + name);
    BuildResult r = buildReference(t, tc, bo);
    ASSERT_TRUE(r.ok) << r.log;
    ReferenceLibrary lib;
    std::string err;
    ASSERT_TRUE(lib.load(r.objectPath, err)) << err;
    struct {
      HostArgs inputs;
      std::vector<std::vector<unsigned char>> expected;
    } set;
    set.inputs = makeHostArgs(t, t.configs[0], 3);
    HostArgs work = set.inputs;
    lib.invoke(t, work);
    set.expected = work.buffers;
    // Every output element is written by the reference (the poison is gone).
    for (size_t i = 0; i < t.args.size(); ++i) {
      if (!t.args[i].isOutput())
        continue;
      size_t n = set.expected[i].size() / dtypeSize(t.args[i].dtype);
      for (size_t e = 0; e < n; ++e) {
        double v = elementAsDouble(set.expected[i].data(), t.args[i].dtype, int64_t(e));
        ASSERT_FALSE(std::isnan(v)) << t.args[i].name << "[" << e << "]";
        if (!dtypeIsFloat(t.args[i].dtype))
          ASSERT_NE(v, double(0xA5A5A5A5u));
      }
    }
    std::string task = name;
    if (task == "vector_add") {
      for (size_t i = 0; i < 1000; ++i)
        EXPECT_FLOAT_EQ(f32(set.expected[2], i), f32(set.inputs.buffers[0], i) + f32(set.inputs.buffers[1], i));
    } else if (task == "histogram") {
      uint64_t total = 0;
      for (int b = 0; b < 256; ++b)
        total += uint32_t(elementAsDouble(set.expected[1].data(), Dtype::U32, b));
      EXPECT_EQ(total, 1001u);
    } else if (task == "softmax") {
      for (int r = 0; r < 7; ++r) {
        double s = 0;
        for (int c = 0; c < 33; ++c)
          s += f32(set.expected[1], size_t(r * 33 + c));
        EXPECT_NEAR(s, 1.0, 1e-5);
      }
    } else if (task == "transpose") {
      EXPECT_EQ(f32(set.expected[1], 5 * 33 + 2), f32(set.inputs.buffers[0], 2 * 65 + 5));
    }
  }
}
