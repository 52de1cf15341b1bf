// A progress bar on stderr for the trainers' long loops: redrawn in place on a terminal, else a
// line every 5% (and at least every 30 s), so a log file stays short.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <unistd.h>

namespace cudaperf::learn {

class Progress {
public:
  explicit Progress(int64_t total) : total_(total), tty_(isatty(STDERR_FILENO)) {}
  void setTotal(int64_t total) { total_ = total; }
  // A loop that also stops after SECONDS (cudaperf-train rl's max_seconds): the eta is then the smaller of
  // the steps' estimate and the time left, so a run bounded by its clock does not show hours to go.
  void setTimeLimit(double seconds) { timeLimit_ = seconds; }
  void update(int64_t done, const std::string &text) {
    double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    int64_t bucket = done * 20 / std::max<int64_t>(1, total_);
    bool due = tty_ || done == total_ || now - lastPrint_ >= 30 || bucket != lastBucket_;
    if (!due) return;
    lastPrint_ = now;
    lastBucket_ = bucket;
    int width = 24, filled = std::min(width, int(double(width) * double(done) / double(std::max<int64_t>(1, total_))));
    std::string bar = std::string(size_t(filled), '#') + std::string(size_t(width - filled), '.');
    double eta = done > 0 ? now / double(done) * double(total_ - done) : 0;
    if (timeLimit_ > 0) eta = done > 0 ? std::min(eta, std::max(0.0, timeLimit_ - now)) : std::max(0.0, timeLimit_ - now);
    char line[512];
    std::snprintf(line, sizeof line, "[%s] %lld/%lld %s  %.0f s, eta %.0f s", bar.c_str(), (long long)done,
                  (long long)total_, text.c_str(), now, eta);
    std::cerr << (tty_ ? "\r" : "") << line << (tty_ ? "" : "\n") << std::flush;
  }
  void finish() {
    if (tty_) std::cerr << "\n";
  }

private:
  int64_t total_;
  bool tty_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double lastPrint_ = -1e9;
  double timeLimit_ = 0;
  int64_t lastBucket_ = -1;
};

} // namespace cudaperf::learn
