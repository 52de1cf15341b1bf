#include "cudaperf/Dataset/Spec.h"

#include <fmt/format.h>

#include <cmath>

namespace cudaperf::dataset {

const char *kindName(Kind k) { return k == Kind::C ? "c" : "pytorch"; }
const char *taskKindName(Kind k) { return k == Kind::C ? "c-to-cuda" : "pytorch-to-cuda"; }

const char *expectedName(Expected e) {
  switch (e) {
  case Expected::Fast: return "fast";
  case Expected::Slow: return "slow";
  case Expected::Neutral: break;
  }
  return "neutral";
}

std::string cType(const std::string &dtype) {
  if (dtype == "f32") return "float";
  if (dtype == "f64") return "double";
  if (dtype == "i32") return "int";
  if (dtype == "i64") return "long long";
  if (dtype == "u32") return "unsigned int";
  if (dtype == "u8") return "unsigned char";
  throw DatasetError("unknown dtype '" + dtype + "'");
}

bool isFloatDtype(const std::string &dtype) { return dtype == "f32" || dtype == "f64"; }

namespace {
// Shortest text that reads back as the same double, always with a '.' or an exponent.
std::string floatText(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}
} // namespace

std::string cLiteral(double value, const std::string &dtype) {
  if (dtype == "f32")
    return floatText(double(float(value))) + "f";
  if (dtype == "f64")
    return floatText(value);
  if (std::floor(value) != value)
    throw DatasetError(fmt::format("cLiteral: {} is not an integer ({})", value, dtype));
  if (dtype == "u32" || dtype == "u8")
    return fmt::format("{}u", (long long)value);
  if (dtype == "i64")
    return fmt::format("{}ll", (long long)value);
  return fmt::format("{}", (long long)value);
}

std::string pyLiteral(double value) {
  if (std::floor(value) == value && std::fabs(value) < 1e15)
    return fmt::format("{}", (long long)value);
  return floatText(value);
}

} // namespace cudaperf::dataset
