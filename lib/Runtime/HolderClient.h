// The evaluator's side of a data holder (cudaperf-eval-worker --holder, one per GPU): starts it,
// sends it one JSON request per line and reads its one-line answer, with a time limit; a holder
// that dies or does not answer in time is killed and started afresh on the next request.
// Internal to lib/Runtime.
#pragma once

#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Subprocess.h"

#include <string>
#include <vector>

namespace cudaperf::runtime {

class HolderClient {
public:
  // env: "NAME=value" for the holder (CUDA_VISIBLE_DEVICES picks its GPU).
  HolderClient(std::string workerPath, std::vector<std::string> env, std::string logPath);
  ~HolderClient();
  HolderClient(const HolderClient &) = delete;
  HolderClient &operator=(const HolderClient &) = delete;

  // The answer, or null with `error` set (the holder is then stopped: everything it held is gone,
  // which `generation()` tells: it grows with every start).
  support::Json request(const support::Json &req, double timeoutSeconds, std::string &error);
  int pid() const { return child_.pid; }
  uint64_t generation() const { return generation_; }
  void stop();

private:
  bool start(std::string &error);
  bool readLine(std::string &line, double timeoutSeconds, std::string &error);

  std::string workerPath_, logPath_;
  std::vector<std::string> env_;
  support::ChildProcess child_;
  std::string buffered_;
  uint64_t generation_ = 0;
};

} // namespace cudaperf::runtime
