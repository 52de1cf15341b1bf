// lib/Runtime's size expressions (a task argument's "count"): parse any text, then evaluate it with
// each name bound to a few values; a SizeExprError is the only way to refuse.
#include "cudaperf/Runtime/SizeExpr.h"

#include <cstdint>
#include <map>
#include <string>

using namespace cudaperf::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  SizeExpr expr;
  try {
    expr = SizeExpr::parse(text);
  } catch (const SizeExprError &) {
    return 0;
  }
  for (double value : {0.0, 1.0, 7.0, 4194305.0, -3.0, 1e300}) {
    std::map<std::string, double> params;
    for (const std::string &name : expr.names())
      params[name] = value;
    try {
      (void)expr.evaluate(params);
    } catch (const SizeExprError &) {
    }
  }
  return 0;
}
