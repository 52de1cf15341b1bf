// lib/Runtime's task format (parseTask: task.json's fields, its size expressions, its flags'
// allow-list): any bytes give a Task or a TaskError listing problems, never another exception or a
// signal.
#include "cudaperf/Runtime/Task.h"

#include <cstdint>
#include <string>

using namespace cudaperf::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  try {
    Task task = parseTask(text, "/nonexistent-fuzz-task", /*checkFiles=*/false);
    (void)task;
  } catch (const TaskError &) {
  }
  return 0;
}
