// Small readers shared by the document readers of lib/Features (internal header).
#pragma once

#include "cudaperf/Features/AnalysisDocument.h"
#include "cudaperf/Schema/AnalysisDocument.h"
#include "cudaperf/Support/JsonReader.h"

namespace cudaperf::features::detail {

inline std::string stringOr(const support::JsonField &parent, const char *key) {
  return parent.optionalString(key).value_or("");
}

// [x], [x, y] or [x, y, z] (schema::readDim3), when `key` is present.
inline std::optional<Dim3> optionalDim3(const support::JsonField &parent, const char *key) {
  auto f = parent.get(key);
  if (!f)
    return std::nullopt;
  schema::Dim3 d = schema::readDim3(*f);
  return Dim3{d.x, d.y, d.z};
}

} // namespace cudaperf::features::detail
