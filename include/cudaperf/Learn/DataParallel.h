// Data-parallel training over c10d (docs/training.md, "Data-parallel"): one process per rank, a
// rendezvous through a TCPStore (MASTER_ADDR:MASTER_PORT, as torchrun sets them) or a FileStore,
// and ProcessGroupNCCL for CUDA devices where the LibTorch has it, ProcessGroupGloo otherwise.
// A world of one has no process group: every collective is the identity, so the one-process code
// path is the N-process one with W = 1.
//
// What the trainers build on it: gradients summed over ranks (each rank's loss already divided by
// the step's global token count, so the sum is the one-process gradient), small sums and maxima of
// statistics, and byte strings gathered from every rank (rollout samples, log lines).
#pragma once

#include "cudaperf/Learn/Error.h"

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace cudaperf::support {
class ArgParser;
}

namespace cudaperf::learn {

struct DataParallelOptions {
  int worldSize = 1, rank = 0;
  int localRank = -1;                 // GPU index on this host (LOCAL_RANK); -1: the rank
  std::string masterAddr = "127.0.0.1";
  int masterPort = 29500;
  std::string storeFile;              // a FileStore on a shared path instead of the TCPStore
  std::string backend = "auto";       // auto (nccl for CUDA where built, else gloo), gloo, nccl
  double timeoutSeconds = 1800;       // rendezvous and every collective; a dead peer fails sooner
};

// The options from the command line's values, with the environment as torchrun sets it where a
// value was not given (WORLD_SIZE, RANK, LOCAL_RANK, MASTER_ADDR, MASTER_PORT) and
// CUDAPERF_DP_STORE_FILE / CUDAPERF_DP_BACKEND / CUDAPERF_DP_TIMEOUT. Throws LearnError on values
// out of range, naming the option or variable.
DataParallelOptions dataParallelOptionsFromEnvironment(DataParallelOptions given, bool worldSizeGiven, bool rankGiven);

// The command-line options of cudaperf-train sft and rl: --world-size, --rank, --master-addr,
// --master-port, --dist-store-file, --dist-backend, --dist-timeout.
struct DataParallelArgs {
  DataParallelOptions options;
  bool worldSizeGiven = false, rankGiven = false;
};
void declareDataParallelOptions(support::ArgParser &parser, DataParallelArgs &args);

// Sets NCCL_NVLS_ENABLE=0 (NVLink multicast off: docs/training.md says why) unless it is set.
void disableNvlinkMulticast();

// Whether this build has the backends.
bool haveGlooBackend();
bool haveNcclBackend();

class DataParallel {
public:
  // Rendezvous with the other ranks (blocks until all are there or the timeout passes). `device` is
  // where this rank trains: it picks the backend under "auto" and where all-reduces run.
  static std::unique_ptr<DataParallel> connect(const DataParallelOptions &options, const torch::Device &device);
  // A world of one: no process group.
  static std::unique_ptr<DataParallel> single();
  ~DataParallel();

  int rank() const { return rank_; }
  int worldSize() const { return worldSize_; }
  bool isRoot() const { return rank_ == 0; }
  std::string describe() const; // "gloo, rank 0 of 2 (tcp 127.0.0.1:29500)"

  // Sums in place over the ranks (fp32/fp64/int64 tensors; CUDA tensors stay on the device with
  // NCCL, go through the host with Gloo).
  void allReduceSum(std::vector<torch::Tensor> &tensors);
  std::vector<double> sum(const std::vector<double> &values);
  double sum(double value) { return sum(std::vector<double>{value})[0]; }
  std::vector<double> max(const std::vector<double> &values);
  // Rank 0's value on every rank.
  double fromRoot(double value);
  // Every rank's bytes, in rank order.
  std::vector<std::string> allGather(const std::string &bytes);
  // Throws LearnError naming `what` unless every rank passes the same bytes (the config, a weight
  // checksum: ranks that would silently train different things).
  void checkSame(const std::string &bytes, const std::string &what);
  void barrier();

  // The Trainer's hook: sums every parameter's gradient over the ranks, in fp32 buckets of at most
  // ~64 MB, written back in the gradient's dtype. A parameter with no gradient on any rank keeps none
  // (as in one process); one with a gradient somewhere gets zeros where it had none.
  void reduceGradients(const std::vector<torch::Tensor> &parameters);

  struct Impl;

private:
  DataParallel() = default;
  int rank_ = 0, worldSize_ = 1;
  std::unique_ptr<Impl> impl_;
};

// Connects as the arguments and the environment say (a world of one without them). A device given as
// "cuda" becomes "cuda:LOCAL_RANK" in a world of more than one (one GPU per process); the result's
// describe() names the backend and rendezvous.
std::unique_ptr<DataParallel> openDataParallel(const DataParallelArgs &args, std::string &device);

// A checksum of tensors' values (fp64 sum of each tensor's values times its position), for checkSame.
std::string tensorChecksum(const std::vector<torch::Tensor> &tensors);

// The items [begin, end) of rank `rank` when n items are cut into W contiguous, balanced blocks.
std::pair<size_t, size_t> shardRange(size_t n, int rank, int worldSize);

} // namespace cudaperf::learn
