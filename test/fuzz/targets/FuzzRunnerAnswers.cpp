// The worker's readers of what its runner sends (schema::runner, cudaperf/Schema/RunnerProtocol.h):
// the runner runs candidate code, so any bytes may arrive on the channel. Parsed as the channel
// parses a datagram (at most 16 levels deep), then read as the `ready` message, as a request, and as
// the answer to each op: a reader either refuses it with a SupportError or takes it, and what it
// takes writes back as a message that reads back to the same text.
#include "cudaperf/Schema/RunnerProtocol.h"
#include "cudaperf/Support/Error.h"
#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace cudaperf;
namespace runner = schema::runner;

namespace {

template <class Read, class Write> void roundTrip(const support::Json &message, Read read, Write write) {
  try {
    support::Json back = write(read(message));
    std::string text = support::writeJson(back);
    if (support::writeJson(write(read(support::parseJson(text)))) != text)
      abort(); // what a reader takes writes back as a message that reads the same
  } catch (const support::SupportError &) {
    // refused, naming the field
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  support::Json message;
  try {
    support::JsonLimits limits;
    limits.maxDepth = 16;
    message = support::parseJson(std::string(reinterpret_cast<const char *>(data), size), "channel message", limits);
  } catch (const support::SupportError &) {
    return 0; // the channel refuses what does not parse
  }
  roundTrip(message, [](const support::Json &m) { return runner::readyFromJson(m, "runner ready"); },
            runner::readyToJson);
  roundTrip(message, [](const support::Json &m) { return runner::requestFromJson(m, "runner request"); },
            runner::requestToJson);
  for (int op = 0; op <= int(runner::Op::Unknown); ++op)
    roundTrip(message, [op](const support::Json &m) { return runner::answerFromJson(m, runner::Op(op), "runner answer"); },
              runner::answerToJson);
  return 0;
}
