// lib/Learn's tokenizer.json reader (Tokenizer::fromJson): any text gives a tokenizer or a
// LearnError; a tokenizer it accepts encodes and decodes a fixed text without a signal.
#include "cudaperf/Learn/Tokenizer.h"

#include <cstdint>
#include <string>

using namespace cudaperf::learn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  try {
    Tokenizer tokenizer = Tokenizer::fromJson(text);
    std::vector<int32_t> ids = tokenizer.encode("__global__ void k(float *x) { x[0] = 1.5f; } // ünïcode 123");
    (void)tokenizer.decode(ids);
  } catch (const TokenizerError &) {
  }
  return 0;
}
