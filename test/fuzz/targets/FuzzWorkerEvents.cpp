// The evaluator's reader of a worker's event file (schema::readWorkerEvents), which a process
// running candidate code may have written: it never throws; every event it keeps writes back, its
// payload too; an event read strictly writes back as the line it was read from.
#include "cudaperf/Schema/Protocol.h"
#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace cudaperf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  for (const schema::WorkerEvent &e : schema::readWorkerEvents(text)) {
    support::Json line = schema::workerEventToJson(e);
    (void)support::writeJson(line);
    (void)support::writeJson(schema::workerEventPayload(e));
    try {
      schema::WorkerEvent strict = schema::workerEventFromJson(line, "event");
      if (support::writeJson(schema::workerEventToJson(strict)) != support::writeJson(line))
        abort(); // a line the strict reader takes writes back as it was
    } catch (const support::SupportError &) {
      // a field of the wrong type: the strict reader refuses it, naming the field
    }
  }
  return 0;
}
