#include "Events.h"

#include <chrono>
#include <fcntl.h>
#include <unistd.h>

namespace cudaperf::worker {

namespace {
int gEventsFd = -1;
auto gStart = std::chrono::steady_clock::now();
} // namespace

bool openEvents(const std::string &path) {
  gEventsFd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  return gEventsFd >= 0;
}

namespace {
double secondsSinceStart() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - gStart).count(); }

void writeLine(const Json &o) {
  std::string line = support::writeJson(o) + "\n";
  const char *p = line.data();
  size_t left = line.size();
  while (gEventsFd >= 0 && left > 0) {
    ssize_t n = write(gEventsFd, p, left);
    if (n <= 0)
      break;
    p += n;
    left -= size_t(n);
  }
}
} // namespace

void emit(schema::WorkerEvent e) {
  e.t = secondsSinceStart();
  writeLine(schema::workerEventToJson(e));
}

void phase(const std::string &impl, const std::string &config, const std::string &step, int set) {
  schema::events::Phase p;
  p.step = step;
  if (set >= 0)
    p.set = set;
  schema::WorkerEvent e = schema::WorkerEvent::make(std::move(p));
  e.impl = impl;
  if (!config.empty())
    e.config = config;
  emit(std::move(e));
}

void finish(int code) {
  emit(schema::WorkerEvent::make(schema::events::Done{}));
  _exit(code);
}

void setupError(const std::string &detail, bool retryable) {
  schema::events::Error error;
  error.detail = detail;
  if (retryable)
    error.retryable = true;
  emit(schema::WorkerEvent::make(std::move(error)));
  finish(3);
}

} // namespace cudaperf::worker
