#include "cudaperf/Runtime/SpareWorkers.h"

#include <unistd.h>

namespace cudaperf::runtime {

namespace {

bool writeAll(int fd, const std::string &text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0)
      return false; // EPIPE (SIGPIPE is ignored by the evaluator): it died waiting
    done += size_t(n);
  }
  return true;
}

} // namespace

support::ChildProcess SpareWorkers::start() {
  ++started_;
  return spawn_();
}

support::ChildProcess SpareWorkers::take(const std::string &jobLine) {
  while (true) {
    bool fresh = spares_.empty();
    support::ChildProcess w = fresh ? start() : spares_.front();
    if (!fresh)
      spares_.pop_front();
    if (w.running() && w.stdinFd >= 0 && writeAll(w.stdinFd, jobLine))
      return w;
    support::stopProcess(w);
    if (fresh)
      return support::ChildProcess();
  }
}

void SpareWorkers::fill(size_t count) {
  while (spares_.size() < count) {
    support::ChildProcess w = start();
    if (!w.running())
      return; // it cannot start now; the next take() tries again
    spares_.push_back(std::move(w));
  }
}

void SpareWorkers::stopAll() {
  for (support::ChildProcess &w : spares_)
    support::stopProcess(w);
  spares_.clear();
}

std::vector<uint32_t> SpareWorkers::pids() const {
  std::vector<uint32_t> out;
  for (const support::ChildProcess &w : spares_)
    out.push_back(uint32_t(w.pid));
  return out;
}

} // namespace cudaperf::runtime
