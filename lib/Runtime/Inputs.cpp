#include "cudaperf/Runtime/Inputs.h"
#include "cudaperf/Runtime/CounterRng.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace cudaperf::runtime {

namespace {

template <typename T> void store(unsigned char *p, int64_t i, T v) { std::memcpy(p + i * sizeof(T), &v, sizeof(T)); }
template <typename T> T load(const unsigned char *p, int64_t i) { T v; std::memcpy(&v, p + i * sizeof(T), sizeof(T)); return v; }

void storeElement(unsigned char *p, Dtype d, int64_t i, double v) {
  switch (d) {
  case Dtype::F32: store<float>(p, i, float(v)); break;
  case Dtype::F64: store<double>(p, i, v); break;
  case Dtype::I32: store<int32_t>(p, i, int32_t(v)); break;
  case Dtype::I64: store<int64_t>(p, i, int64_t(v)); break;
  case Dtype::U32: store<uint32_t>(p, i, uint32_t(v)); break;
  case Dtype::U8: store<uint8_t>(p, i, uint8_t(v)); break;
  }
}

} // namespace

uint64_t inputSeed(uint64_t baseSeed, size_t config, size_t set) {
  uint64_t state = baseSeed ^ (uint64_t(config) << 32) ^ uint64_t(set);
  return generatorDraw(state, 0) & 0xFFFFFFFFFFFFull; // 48 bits: exact in JSON numbers
}

double elementAsDouble(const unsigned char *p, Dtype d, int64_t i) {
  switch (d) {
  case Dtype::F32: return load<float>(p, i);
  case Dtype::F64: return load<double>(p, i);
  case Dtype::I32: return load<int32_t>(p, i);
  case Dtype::I64: return double(load<int64_t>(p, i));
  case Dtype::U32: return load<uint32_t>(p, i);
  case Dtype::U8: return load<uint8_t>(p, i);
  }
  return 0;
}

void poisonBuffer(std::vector<unsigned char> &buf, Dtype dtype) {
  if (dtype == Dtype::F32) {
    float nan = std::numeric_limits<float>::quiet_NaN();
    for (size_t i = 0; i + 4 <= buf.size(); i += 4)
      std::memcpy(&buf[i], &nan, 4);
  } else if (dtype == Dtype::F64) {
    double nan = std::numeric_limits<double>::quiet_NaN();
    for (size_t i = 0; i + 8 <= buf.size(); i += 8)
      std::memcpy(&buf[i], &nan, 8);
  } else {
    std::memset(buf.data(), 0xA5, buf.size());
  }
}

HostArgs makeHostArgs(const Task &task, const Config &config, uint64_t seed) {
  HostArgs out;
  std::vector<int64_t> counts = task.counts(config);
  for (size_t i = 0; i < task.args.size(); ++i) {
    const Argument &a = task.args[i];
    out.scalars.push_back(a.isPointer() ? 0 : task.scalarValue(a, config));
    std::vector<unsigned char> buf;
    if (a.isPointer()) {
      buf.resize(size_t(counts[i]) * dtypeSize(a.dtype));
      if (a.access == Argument::Access::Out)
        poisonBuffer(buf, a.dtype);
      else
        drawElements(elementStream(a, i, seed), 0, uint64_t(counts[i]), buf.data());
    }
    out.buffers.push_back(std::move(buf));
  }
  return out;
}

PackedArgs packArgs(const Task &task, const HostArgs &args, const std::vector<void *> *devicePointers) {
  PackedArgs packed;
  packed.scalarStorage.resize(task.args.size());
  for (size_t i = 0; i < task.args.size(); ++i) {
    const Argument &a = task.args[i];
    if (a.isPointer()) {
      packed.pointers.push_back(devicePointers ? (*devicePointers)[i]
                                               : const_cast<unsigned char *>(args.buffers[i].data()));
    } else {
      packed.scalarStorage[i].resize(8);
      storeElement(packed.scalarStorage[i].data(), a.dtype, 0, args.scalars[i]);
      packed.pointers.push_back(packed.scalarStorage[i].data());
    }
  }
  return packed;
}

Mismatch compareOutputs(const Task &task, const std::vector<std::vector<unsigned char>> &got,
                        const std::vector<std::vector<unsigned char>> &expected) {
  Mismatch m;
  double worstExcess = -1;
  for (size_t i = 0; i < task.args.size(); ++i) {
    const Argument &a = task.args[i];
    if (!a.isOutput())
      continue;
    Tolerance tol = task.toleranceFor(a);
    int64_t n = int64_t(expected[i].size() / dtypeSize(a.dtype));
    for (int64_t e = 0; e < n; ++e) {
      double g = elementAsDouble(got[i].data(), a.dtype, e);
      double x = elementAsDouble(expected[i].data(), a.dtype, e);
      double diff = std::fabs(g - x);
      double limit = tol.atol + tol.rtol * std::fabs(x);
      bool bad = !(diff <= limit); // false for NaN diff: NaN never passes
      if (std::isinf(g) && std::isinf(x) && g == x)
        bad = false;
      if (!bad)
        continue;
      ++m.badElements;
      if (std::isnan(g) || (std::isinf(g) && !std::isinf(x)))
        ++m.nanElements;
      double excess = std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff - limit;
      if (m.pass || excess > worstExcess) {
        m.pass = false;
        worstExcess = excess;
        m.argument = a.name;
        m.index = e;
        m.got = g;
        m.expected = x;
      }
    }
  }
  return m;
}

} // namespace cudaperf::runtime
