// Element types that task arguments may have, with the names used in task.json and the C
// spellings used in generated entry-point shims.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace cudaperf::runtime {

enum class Dtype { F32, F64, I32, I64, U32, U8 };

std::optional<Dtype> parseDtype(const std::string &name); // "f32", "float", "i32", ...
const char *dtypeName(Dtype d);                           // canonical: "f32"
const char *dtypeCType(Dtype d);                          // "float", "int32_t", ...
size_t dtypeSize(Dtype d);
bool dtypeIsFloat(Dtype d);

} // namespace cudaperf::runtime
