// lib/Runtime's `cudaperf-eval --serve` request lines (parseServeRequest): it never throws; every
// line is a request or an error message for the client, and both can be written back as JSON.
#include "cudaperf/Runtime/ServeProtocol.h"
#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace cudaperf::runtime;

static void check(const ServeParse &parse) {
  if (parse.request.has_value() == !parse.errorCode.empty())
    abort(); // exactly one of a request and an error
  if (parse.request)
    (void)cudaperf::support::writeJson(serveResult(parse.request->id, nlohmann::ordered_json::object()));
  else
    (void)cudaperf::support::writeJson(serveError(parse.id, parse.errorCode, parse.errorMessage));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string line(reinterpret_cast<const char *>(data), size);
  check(parseServeRequest(line));
  ServePolicy policy;
  policy.candidateRoot = "/nonexistent-fuzz-root";
  policy.taskRoot = "/nonexistent-fuzz-root";
  check(parseServeRequest(line, policy));
  return 0;
}
