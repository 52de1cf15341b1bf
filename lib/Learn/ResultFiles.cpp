#include "cudaperf/Learn/ResultFiles.h"

#include "cudaperf/Learn/Error.h"
#include "cudaperf/Support/JsonReader.h"
#include "cudaperf/Support/Error.h"

#ifdef CUDAPERF_HAVE_ZSTD
#include <zstd.h>
#endif
#include <sstream>

namespace cudaperf::learn {

namespace {

std::string decompressZstd(const std::string &path, const std::string &compressed) {
#ifdef CUDAPERF_HAVE_ZSTD
  std::string out;
  ZSTD_DStream *stream = ZSTD_createDStream();
  ZSTD_initDStream(stream);
  ZSTD_inBuffer in{compressed.data(), compressed.size(), 0};
  std::vector<char> buffer(ZSTD_DStreamOutSize());
  size_t status = 0;
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buffer.data(), buffer.size(), 0};
    status = ZSTD_decompressStream(stream, &o, &in);
    if (ZSTD_isError(status)) {
      ZSTD_freeDStream(stream);
      throw LearnError(path + ": not a valid zstd file: " + ZSTD_getErrorName(status));
    }
    out.append(buffer.data(), o.pos);
  }
  ZSTD_freeDStream(stream);
  if (status != 0) throw LearnError(path + ": the zstd stream is truncated");
  return out;
#else
  (void)compressed;
  throw LearnError(path + ": this build has no libzstd (install libzstd-dev and configure again)");
#endif
}

} // namespace

std::vector<support::Json> readResultDocuments(const std::string &path) {
  std::string text;
  try {
    text = support::readRegularFile(path); // regular files only, size-capped
  } catch (const support::SupportError &e) {
    throw LearnError(e.what());
  }
  if (path.size() > 4 && path.substr(path.size() - 4) == ".zst") text = decompressZstd(path, text);
  std::vector<support::Json> docs;
  std::istringstream lines(text);
  std::string line;
  for (size_t n = 1; std::getline(lines, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      docs.push_back(support::parseJson(line, path + ":" + std::to_string(n)));
    } catch (const support::SupportError &e) {
      throw LearnError(e.what());
    }
  }
  return docs;
}

} // namespace cudaperf::learn
