#include "cudaperf/Runtime/Dtype.h"

namespace cudaperf::runtime {

std::optional<Dtype> parseDtype(const std::string &name) {
  if (name == "f32" || name == "float") return Dtype::F32;
  if (name == "f64" || name == "double") return Dtype::F64;
  if (name == "i32" || name == "int" || name == "int32_t") return Dtype::I32;
  if (name == "i64" || name == "int64_t" || name == "long long") return Dtype::I64;
  if (name == "u32" || name == "unsigned" || name == "uint32_t") return Dtype::U32;
  if (name == "u8" || name == "uint8_t" || name == "unsigned char") return Dtype::U8;
  return std::nullopt;
}

const char *dtypeName(Dtype d) {
  switch (d) {
  case Dtype::F32: return "f32";
  case Dtype::F64: return "f64";
  case Dtype::I32: return "i32";
  case Dtype::I64: return "i64";
  case Dtype::U32: return "u32";
  case Dtype::U8: return "u8";
  }
  return "?";
}

const char *dtypeCType(Dtype d) {
  switch (d) {
  case Dtype::F32: return "float";
  case Dtype::F64: return "double";
  case Dtype::I32: return "int";
  case Dtype::I64: return "long long";
  case Dtype::U32: return "unsigned int";
  case Dtype::U8: return "unsigned char";
  }
  return "void";
}

size_t dtypeSize(Dtype d) {
  switch (d) {
  case Dtype::F32: return 4;
  case Dtype::F64: return 8;
  case Dtype::I32: return 4;
  case Dtype::I64: return 8;
  case Dtype::U32: return 4;
  case Dtype::U8: return 1;
  }
  return 0;
}

bool dtypeIsFloat(Dtype d) { return d == Dtype::F32 || d == Dtype::F64; }

} // namespace cudaperf::runtime
