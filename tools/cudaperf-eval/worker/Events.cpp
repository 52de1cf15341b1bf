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

void emit(Json o) {
  o["t"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - gStart).count();
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

Json event(const char *type) {
  Json o = Json::object();
  o["event"] = type;
  return o;
}

void phase(const std::string &impl, const std::string &config, const std::string &step, int set) {
  Json o = event("phase");
  o["impl"] = impl;
  if (!config.empty())
    o["config"] = config;
  o["step"] = step;
  if (set >= 0)
    o["set"] = set;
  emit(std::move(o));
}

void finish(int code) {
  emit(event("done"));
  _exit(code);
}

void setupError(const std::string &detail, bool retryable) {
  Json o = event("error");
  o["detail"] = detail;
  if (retryable)
    o["retryable"] = true;
  emit(std::move(o));
  finish(3);
}

} // namespace cudaperf::worker
