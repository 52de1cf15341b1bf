// lib/Support's JSON reader (parseJson, with and without request-style limits) and writer: any
// bytes give a document or a SupportError, never a signal, and a document read back from its own
// written text is the same document.
#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

using namespace cudaperf::support;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    Json doc = parseJson(text, "fuzz.json");
    std::string written = writeJson(doc);
    if (parseJson(written, "written.json") != doc)
      abort(); // the writer lost or changed something
    (void)writeJson(doc, 2);
    (void)jsonSnippet(doc);
  } catch (const SupportError &) {
  }
  try {
    JsonLimits limits;
    limits.maxDepth = 16;
    limits.maxValues = 1000;
    limits.maxBytes = 1 << 16;
    (void)parseJson(text, "request", limits);
  } catch (const SupportError &) {
  }
  return 0;
}
