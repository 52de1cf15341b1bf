// Small readers shared by the document readers of lib/Features (internal header).
#pragma once

#include "cudaperf/Features/AnalysisDocument.h"
#include "cudaperf/Support/JsonReader.h"

namespace cudaperf::features::detail {

inline std::string stringOr(const support::JsonField &parent, const char *key) {
  return parent.optionalString(key).value_or("");
}

// [x], [x, y] or [x, y, z], each a whole number >= 0.
inline Dim3 readDim3(const support::JsonField &f) {
  std::vector<support::JsonField> e = f.elements();
  if (e.empty() || e.size() > 3)
    f.fail("expected [x, y, z] with 1 to 3 numbers, got " + std::to_string(e.size()));
  Dim3 d;
  d.x = e[0].integer(0);
  if (e.size() > 1)
    d.y = e[1].integer(0);
  if (e.size() > 2)
    d.z = e[2].integer(0);
  return d;
}

inline std::optional<Dim3> optionalDim3(const support::JsonField &parent, const char *key) {
  auto f = parent.get(key);
  return f ? std::optional<Dim3>(readDim3(*f)) : std::nullopt;
}

} // namespace cudaperf::features::detail
