// c10d behind DataParallel.h. Debian's LibTorch 1.13 ships ProcessGroupGloo, TCPStore and FileStore
// (headers guarded by USE_C10D_GLOO: CMake probes that they compile and link, then defines
// CUDAPERF_HAVE_GLOO); the GPU host's 2.11 adds ProcessGroupNCCL
// (CUDAPERF_HAVE_NCCL, probed the same way). Between the versions the process groups moved from
// c10d::ProcessGroup to c10d::Backend as their base; the collectives used here (allreduce with
// AllreduceOptions, barrier, Work::wait) have the same signatures in both, so the calls go through
// a template on the concrete class and name no base (TorchCompat.h, "c10d").
#include "cudaperf/Learn/DataParallel.h"

#define CUDAPERF_COMPAT_C10D 1
#include "cudaperf/Learn/TorchCompat.h"

#include "cudaperf/Support/ArgParser.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <unistd.h>

namespace cudaperf::learn {

namespace {

int envInt(const char *name, int fallback, int lo, int hi) {
  const char *v = std::getenv(name);
  if (!v || !*v) return fallback;
  char *end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (*end || n < lo || n > hi)
    throw LearnError(std::string(name) + "=" + v + ": expected an integer in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
  return int(n);
}

std::string envString(const char *name, const std::string &fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

bool isLoopback(const std::string &host) { return host == "localhost" || host.rfind("127.", 0) == 0; }

} // namespace

DataParallelOptions dataParallelOptionsFromEnvironment(DataParallelOptions o, bool worldSizeGiven, bool rankGiven) {
  if (!worldSizeGiven) o.worldSize = envInt("WORLD_SIZE", o.worldSize, 1, 1 << 16);
  if (!rankGiven) o.rank = envInt("RANK", o.rank, 0, 1 << 16);
  if (o.localRank < 0) o.localRank = envInt("LOCAL_RANK", -1, 0, 1 << 16);
  o.masterAddr = envString("MASTER_ADDR", o.masterAddr);
  o.masterPort = envInt("MASTER_PORT", o.masterPort, 1, 65535);
  if (o.storeFile.empty()) o.storeFile = envString("CUDAPERF_DP_STORE_FILE", "");
  o.backend = envString("CUDAPERF_DP_BACKEND", o.backend);
  if (const char *t = std::getenv("CUDAPERF_DP_TIMEOUT"); t && *t) {
    char *end = nullptr;
    double s = std::strtod(t, &end);
    if (*end || !(s > 0)) throw LearnError(std::string("CUDAPERF_DP_TIMEOUT=") + t + ": expected seconds > 0");
    o.timeoutSeconds = s;
  }
  if (o.worldSize < 1) throw LearnError("--world-size " + std::to_string(o.worldSize) + ": expected at least 1");
  if (o.rank < 0 || o.rank >= o.worldSize)
    throw LearnError("--rank " + std::to_string(o.rank) + " is outside the world of " + std::to_string(o.worldSize) +
                     " ranks (0.." + std::to_string(o.worldSize - 1) + ")");
  if (o.backend != "auto" && o.backend != "gloo" && o.backend != "nccl")
    throw LearnError("data-parallel backend \"" + o.backend + "\": expected auto, gloo or nccl");
  if (o.localRank < 0) o.localRank = o.rank;
  return o;
}

void declareDataParallelOptions(support::ArgParser &p, DataParallelArgs &a) {
  DataParallelOptions &o = a.options;
  p.option("--world-size", "N", "data parallel: ranks in all, one process each (default WORLD_SIZE, else 1)",
           [&a](const std::string &v) {
             a.options.worldSize = int(support::parseInteger(v, 1, 1 << 16));
             a.worldSizeGiven = true;
           });
  p.option("--rank", "R", "data parallel: this process's rank, 0..N-1 (default RANK, else 0); rank 0 writes the outputs",
           [&a](const std::string &v) {
             a.options.rank = int(support::parseInteger(v, 0, 1 << 16));
             a.rankGiven = true;
           });
  p.option("--master-addr", "HOST", "data parallel: rank 0's TCPStore address (default MASTER_ADDR, else 127.0.0.1)",
           o.masterAddr);
  p.option("--master-port", "PORT", "data parallel: its port (default MASTER_PORT, else 29500)",
           [&o](const std::string &v) { o.masterPort = int(support::parseInteger(v, 1, 65535)); });
  p.option("--dist-store-file", "FILE", "data parallel: rendezvous through this file (a FileStore) instead of TCP; "
           "it must not exist before the run", o.storeFile);
  p.option("--dist-backend", "NAME", "data parallel: auto (nccl on CUDA where built, else gloo), gloo or nccl", o.backend);
  p.option("--dist-timeout", "S", "data parallel: seconds the rendezvous and each collective may wait (default 1800)",
           [&o](const std::string &v) { o.timeoutSeconds = support::parseNumber(v, 0.1, 1e7); });
}

std::unique_ptr<DataParallel> openDataParallel(const DataParallelArgs &args, std::string &device) {
  DataParallelOptions o = dataParallelOptionsFromEnvironment(args.options, args.worldSizeGiven, args.rankGiven);
  if (o.worldSize > 1 && device == "cuda") device = "cuda:" + std::to_string(o.localRank);
  return DataParallel::connect(o, torch::Device(device));
}

std::string tensorChecksum(const std::vector<torch::Tensor> &tensors) {
  torch::NoGradGuard noGrad;
  double total = 0;
  for (size_t i = 0; i < tensors.size(); ++i)
    total += double(i + 1) * tensors[i].detach().to(torch::kFloat64).sum().item<double>();
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", total);
  return text;
}

void disableNvlinkMulticast() { setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0); }

bool haveGlooBackend() { return compat::kHaveGloo; }
bool haveNcclBackend() { return compat::kHaveNccl; }

struct DataParallel::Impl {
  DataParallelOptions options;
  torch::Device device{torch::kCPU};
  bool onDevice = false; // NCCL: collectives on the training device; Gloo: on the host
  std::string backend, where;
  c10::intrusive_ptr<c10d::Store> store;
#if CUDAPERF_HAVE_GLOO
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo;
#endif
#if CUDAPERF_HAVE_NCCL
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl;
#endif

  [[noreturn]] void fail(const std::string &what, const std::exception &e) const {
    std::string message = e.what();
    if (const auto *c = dynamic_cast<const c10::Error *>(&e)) message = c->what_without_backtrace();
    message = message.substr(0, message.find('\n'));
    throw LearnError("data-parallel " + what + " failed on rank " + std::to_string(options.rank) + " of " +
                     std::to_string(options.worldSize) + " (" + backend +
                     "): a peer exited, or did not answer within " + std::to_string(int(options.timeoutSeconds)) +
                     " s: " + message);
  }

  // CUDAPERF_DP_TEST_EXIT_AFTER=N: the process exits (status 9) at its N-th collective, as a crashed
  // rank would: the tests' way to check that its peers then fail with a message instead of waiting.
  int exitAfter = envInt("CUDAPERF_DP_TEST_EXIT_AFTER", 0, 0, 1 << 30), collectives = 0;

  // One collective on the process group in use; `tensors` are where that backend wants them.
  void allReduce(std::vector<torch::Tensor> &tensors, c10d::ReduceOp op) {
    if (exitAfter > 0 && ++collectives >= exitAfter) _exit(9);
    c10d::AllreduceOptions o;
    o.reduceOp = op;
    try {
#if CUDAPERF_HAVE_NCCL
      if (nccl) {
        nccl->allreduce(tensors, o)->wait();
        return;
      }
#endif
#if CUDAPERF_HAVE_GLOO
      if (gloo) {
        gloo->allreduce(tensors, o)->wait();
        return;
      }
#endif
    } catch (const std::exception &e) {
      fail("all-reduce", e);
    }
    throw LearnError("data-parallel: no process group (internal error)");
  }

  // Moves `t` where the backend reduces, reduces it, and returns it there.
  torch::Tensor reduced(torch::Tensor t, c10d::ReduceOp op) {
    t = (onDevice ? t.to(device) : t.to(torch::kCPU)).contiguous();
    std::vector<torch::Tensor> v{t};
    allReduce(v, op);
    return v[0];
  }
};

std::unique_ptr<DataParallel> DataParallel::single() { return std::unique_ptr<DataParallel>(new DataParallel()); }

DataParallel::~DataParallel() = default;

std::unique_ptr<DataParallel> DataParallel::connect(const DataParallelOptions &o, const torch::Device &device) {
  disableNvlinkMulticast();
  if (o.worldSize <= 1) return single();
  auto dp = std::unique_ptr<DataParallel>(new DataParallel());
  dp->rank_ = o.rank;
  dp->worldSize_ = o.worldSize;
  dp->impl_ = std::make_unique<Impl>();
  Impl &m = *dp->impl_;
  m.options = o;
  m.device = device;
  std::string backend = o.backend;
  if (backend == "auto") backend = device.is_cuda() && compat::kHaveNccl ? "nccl" : "gloo";
  if (backend == "nccl" && !compat::kHaveNccl)
    throw LearnError("data-parallel backend nccl: this build has no ProcessGroupNCCL (LibTorch " + compat::versionText() +
                     "; use gloo)");
  if (backend == "nccl" && !device.is_cuda()) throw LearnError("data-parallel backend nccl needs a CUDA device, not " + device.str());
  if (backend == "gloo" && !compat::kHaveGloo)
    throw LearnError("data-parallel backend gloo: this build has no ProcessGroupGloo (LibTorch " + compat::versionText() +
                     " without c10d Gloo, or libgloo-dev missing at configure time)");
  m.backend = backend;
  m.onDevice = backend == "nccl";
  auto timeout = std::chrono::milliseconds(int64_t(o.timeoutSeconds * 1000));
  m.where = o.storeFile.empty() ? "tcp " + o.masterAddr + ":" + std::to_string(o.masterPort) : "file " + o.storeFile;
  try {
    if (!o.storeFile.empty()) {
      m.store = c10::make_intrusive<c10d::FileStore>(o.storeFile, o.worldSize);
    } else {
      c10d::TCPStoreOptions so;
      so.port = uint16_t(o.masterPort);
      so.isServer = o.rank == 0;
      so.numWorkers = size_t(o.worldSize);
      so.waitWorkers = true;
      so.timeout = timeout;
      m.store = c10::make_intrusive<c10d::TCPStore>(o.masterAddr, so);
    }
    m.store->setTimeout(timeout);
#if CUDAPERF_HAVE_NCCL
    if (backend == "nccl") {
      auto opts = c10d::ProcessGroupNCCL::Options::create();
      opts->timeout = timeout;
      m.nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(m.store, o.rank, o.worldSize, opts);
    }
#endif
#if CUDAPERF_HAVE_GLOO
    if (backend == "gloo") {
      auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
      // One host (the loopback address): bind there, whatever the host name resolves to;
      // GLOO_SOCKET_IFNAME picks an interface, as in PyTorch.
      std::string ifname = envString("GLOO_SOCKET_IFNAME", "");
      if (!ifname.empty()) opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
      else if (isLoopback(o.masterAddr)) opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      else opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      opts->threads = 2;
      m.gloo = c10::make_intrusive<c10d::ProcessGroupGloo>(m.store, o.rank, o.worldSize, opts);
    }
#endif
  } catch (const LearnError &) {
    throw;
  } catch (const std::exception &e) {
    std::string message = e.what();
    if (const auto *c = dynamic_cast<const c10::Error *>(&e)) message = c->what_without_backtrace();
    throw LearnError("data-parallel rendezvous (" + m.where + ", " + backend + ") failed on rank " +
                     std::to_string(o.rank) + " of " + std::to_string(o.worldSize) + " within " +
                     std::to_string(int(o.timeoutSeconds)) + " s: " + message.substr(0, message.find('\n')));
  }
  dp->barrier(); // every rank has its process group before the first real collective
  return dp;
}

std::string DataParallel::describe() const {
  if (!impl_) return "one process";
  return impl_->backend + ", rank " + std::to_string(rank_) + " of " + std::to_string(worldSize_) + " (" + impl_->where + ")";
}

void DataParallel::allReduceSum(std::vector<torch::Tensor> &tensors) {
  if (!impl_) return;
  for (torch::Tensor &t : tensors) {
    torch::Tensor r = impl_->reduced(t, c10d::ReduceOp::SUM);
    if (r.data_ptr() != t.data_ptr()) t.copy_(r);
  }
}

std::vector<double> DataParallel::sum(const std::vector<double> &values) {
  if (!impl_ || values.empty()) return values;
  torch::Tensor r = impl_->reduced(torch::tensor(values, torch::kFloat64), c10d::ReduceOp::SUM).to(torch::kCPU);
  return std::vector<double>(r.data_ptr<double>(), r.data_ptr<double>() + r.numel());
}

std::vector<double> DataParallel::max(const std::vector<double> &values) {
  if (!impl_ || values.empty()) return values;
  torch::Tensor r = impl_->reduced(torch::tensor(values, torch::kFloat64), c10d::ReduceOp::MAX).to(torch::kCPU);
  return std::vector<double>(r.data_ptr<double>(), r.data_ptr<double>() + r.numel());
}

double DataParallel::fromRoot(double value) { return sum(isRoot() ? value : 0.0); }

std::vector<std::string> DataParallel::allGather(const std::string &bytes) {
  if (!impl_) return {bytes};
  // Sizes first, then one buffer in which each rank fills its own range (zeros elsewhere): a sum.
  std::vector<double> sizes(size_t(worldSize_), 0.0);
  sizes[size_t(rank_)] = double(bytes.size());
  sizes = sum(sizes);
  std::vector<int64_t> offsets(size_t(worldSize_) + 1, 0);
  for (int r = 0; r < worldSize_; ++r) offsets[size_t(r) + 1] = offsets[size_t(r)] + int64_t(sizes[size_t(r)]);
  torch::Tensor buffer = torch::zeros({std::max<int64_t>(1, offsets.back())}, torch::kUInt8);
  if (!bytes.empty()) std::memcpy(buffer.data_ptr<uint8_t>() + offsets[size_t(rank_)], bytes.data(), bytes.size());
  buffer = impl_->reduced(buffer, c10d::ReduceOp::SUM).to(torch::kCPU);
  std::vector<std::string> out;
  const char *data = reinterpret_cast<const char *>(buffer.data_ptr<uint8_t>());
  for (int r = 0; r < worldSize_; ++r)
    out.emplace_back(data + offsets[size_t(r)], size_t(offsets[size_t(r) + 1] - offsets[size_t(r)]));
  return out;
}

void DataParallel::checkSame(const std::string &bytes, const std::string &what) {
  if (!impl_) return;
  std::vector<std::string> all = allGather(bytes);
  for (int r = 0; r < worldSize_; ++r)
    if (all[size_t(r)] != bytes)
      throw LearnError("data parallel: rank " + std::to_string(r) + " has another " + what + " than rank " +
                       std::to_string(rank_) + " (every rank must run the same command but for --rank)");
}

void DataParallel::barrier() {
  if (!impl_) return;
  // An all-reduce of one number: the same effect as barrier() and the same failure path on both backends.
  sum(0.0);
}

void DataParallel::reduceGradients(const std::vector<torch::Tensor> &parameters) {
  if (!impl_) return;
  torch::NoGradGuard noGrad;
  std::vector<double> defined(parameters.size(), 0.0);
  for (size_t i = 0; i < parameters.size(); ++i) defined[i] = parameters[i].grad().defined() ? 1.0 : 0.0;
  defined = sum(defined);
  const int64_t bucketElements = int64_t(16) << 20; // 64 MB of fp32
  std::vector<size_t> bucket;
  int64_t elements = 0;
  auto flush = [&] {
    if (bucket.empty()) return;
    std::vector<torch::Tensor> flat;
    for (size_t i : bucket) {
      torch::Tensor g = parameters[i].grad();
      flat.push_back(g.defined() ? g.to(torch::kFloat32).reshape({-1}) : torch::zeros({parameters[i].numel()}, parameters[i].options().dtype(torch::kFloat32)));
    }
    torch::Tensor sumAll = impl_->reduced(torch::cat(flat), c10d::ReduceOp::SUM);
    int64_t at = 0;
    for (size_t i : bucket) {
      const torch::Tensor &p = parameters[i];
      torch::Tensor part = sumAll.narrow(0, at, p.numel()).view(p.sizes()).to(p.device());
      at += p.numel();
      if (p.grad().defined()) p.grad().copy_(part);
      else const_cast<torch::Tensor &>(p).mutable_grad() = part.to(p.scalar_type());
    }
    bucket.clear();
    elements = 0;
  };
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (defined[i] == 0) continue;
    if (elements > 0 && elements + parameters[i].numel() > bucketElements) flush();
    bucket.push_back(i);
    elements += parameters[i].numel();
  }
  flush();
}

std::pair<size_t, size_t> shardRange(size_t n, int rank, int worldSize) {
  size_t w = size_t(std::max(1, worldSize)), r = size_t(std::max(0, rank));
  return {n * r / w, n * (r + 1) / w};
}

} // namespace cudaperf::learn
