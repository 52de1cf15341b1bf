// cudaperf-eval-worker --holder: the long-lived keeper of tasks' data on one GPU. For each task
// the evaluator names, it generates the input sets on the device, obtains the expected outputs
// (from the on-disk set cache, from reference.c on the host one set at a time, or from
// cudaperf-torch-reference writing straight into the holder's buffers through CUDA IPC), computes
// checksums and publishes a manifest (runtime::DeviceData) that workers map. It runs only trusted
// code (the generator, the task's reference), never a candidate. Protocol: one JSON object per line
// on stdin, one answer per line on the descriptor that was stdout (stdout itself then goes to
// stderr, so a reference that prints cannot corrupt the protocol); EOF ends it.
#include "DeviceInfo.h"
#include "Holder.h"
#include "SetData.h"

#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "cudaperf/Runtime/Build.h"
#include "cudaperf/Runtime/CounterRng.h"
#include "cudaperf/Runtime/DeviceData.h"
#include "cudaperf/Runtime/Inputs.h"
#include "cudaperf/Runtime/Reference.h"
#include "cudaperf/Support/Sha256.h"
#include "cudaperf/Support/Subprocess.h"
#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Schema/Protocol.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <map>
#include <stdexcept>
#include <unistd.h>

namespace cudaperf::worker {

namespace {

using Json = nlohmann::ordered_json;
using namespace cudaperf::runtime;
using support::ProcessOptions;
using support::ProcessResult;
using support::runProcess;
using support::Sha256;
namespace dk = cudaperf::devicekernels;
using Clock = std::chrono::steady_clock;
namespace holder = schema::holder;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct HolderError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t e, const std::string &what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw HolderError(what + ": " + cudaErrorText(e));
  }
}


class Holder {
public:
  explicit Holder(int protocolFd) : out_(protocolFd) {}

  void run() {
    try {
      setUp();
    } catch (const HolderError &e) {
      answer(failed("", std::string("holder set-up: ") + e.what()));
      return;
    }
    answer(holder::answerToJson(holder::Answer::make(holder::Ready{uuid_, int64_t(getpid())}, std::nullopt)));
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty())
        continue;
      Json req;
      holder::Request request;
      try {
        req = Json::parse(line);
        request = holder::requestFromJson(req, "request");
      } catch (const std::exception &e) {
        const Json *key = support::member(req, "key");
        answer(failed(key && key->is_string() ? key->get<std::string>() : "", std::string("bad request: ") + e.what()));
        continue;
      }
      std::string key = request.key.value_or("");
      try {
        if (const holder::Prepare *p = request.as<holder::Prepare>()) {
          if (!request.key)
            throw HolderError("key: missing");
          answer(prepare(*p, key));
        } else if (request.as<holder::Release>()) {
          answer(release(key));
        } else if (request.as<holder::Verify>()) {
          answer(verify(key));
        } else {
          answer(failed(key, "unknown op '" + request.op + "'"));
        }
      } catch (const std::exception &e) {
        release(key);
        answer(failed(key, e.what()));
      }
    }
  }

private:
  struct Prepared {
    std::vector<void *> slabs; // [config * sets + set]
    DeviceData data;
  };

  int out_;
  std::string uuid_;
  cudaStream_t stream_ = nullptr;
  dk::DeviceScratch scratch_;
  Staging staging_; // pinned, for the set cache
  std::map<std::string, Prepared> prepared_;

  static Json failed(const std::string &key, const std::string &detail) {
    return holder::answerToJson(holder::Answer::make(holder::Failed{detail}, key));
  }

  void answer(const Json &j) {
    std::string line = j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
    for (size_t done = 0; done < line.size();) {
      ssize_t n = write(out_, line.data() + done, line.size() - done);
      if (n <= 0)
        return;
      done += size_t(n);
    }
  }

  void setUp() {
    check(cudaSetDevice(0), "cudaSetDevice");
    // Creating the context needs device memory too: wait while another process holds it all.
    cudaError_t e = cudaErrorMemoryAllocation;
    for (int attempt = 0; attempt < 60 && e == cudaErrorMemoryAllocation; ++attempt) {
      e = cudaFree(nullptr);
      if (e == cudaErrorMemoryAllocation)
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    check(e, "creating the CUDA context");
    cudaDeviceProp prop;
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    uuid_ = uuidString(prop.uuid);
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(scratch_.init(stream_), "device scratch");
    check(staging_.init(), "pinned staging buffer");
  }

  Json release(const std::string &key) {
    auto it = prepared_.find(key);
    if (it != prepared_.end()) {
      cudaStreamSynchronize(stream_);
      for (void *p : it->second.slabs)
        if (p)
          cudaFree(p);
      prepared_.erase(it);
    }
    return holder::answerToJson(holder::Answer::make(holder::Released{}, key));
  }

  Json verify(const std::string &key) {
    auto it = prepared_.find(key);
    if (it == prepared_.end())
      return failed(key, "not prepared");
    std::string damage = checkSums(it->second, false);
    return holder::answerToJson(holder::Answer::make(holder::Verified{damage.empty(), damage}, key));
  }

  // Computes (publish) or compares the checksums of every buffer; "" or the first damaged one.
  std::string checkSums(Prepared &p, bool publish) {
    for (size_t c = 0; c < p.data.configs.size(); ++c)
      for (size_t s = 0; s < p.data.configs[c].sets.size(); ++s) {
        DeviceSet &set = p.data.configs[c].sets[s];
        auto *slab = static_cast<unsigned char *>(p.slabs[c * size_t(p.data.sets) + s]);
        for (DeviceBuffer &b : set.buffers) {
          uint64_t sum = 0;
          check(dk::checksumBytes(scratch_, slab + b.offset, b.bytes, sum), "checksum");
          if (publish)
            b.checksum = sum;
          else if (sum != b.checksum)
            return "config " + p.data.configs[c].name + ", set " + std::to_string(s) + ", argument " +
                   std::to_string(b.arg);
        }
      }
    return "";
  }

  Json prepare(const holder::Prepare &req, const std::string &key) {
    auto start = Clock::now();
    release(key);
    Task task = loadTask(req.taskDir);
    std::vector<std::string> configs = req.configs.value_or(std::vector<std::string>{});
    selectConfigs(task, configs);
    uint64_t seed = req.seed;
    int sets = int(req.sets);
    double memoryWait = req.memoryWaitSeconds.value_or(30.0);
    std::string setCache = req.setCache.value_or("");
    uint64_t cacheLimit = req.setCacheLimitBytes.value_or(uint64_t(1) << 30);
    std::string referenceId = req.referenceId.value_or("");
    std::string taskText;
    readFile(task.dir + "/task.json", taskText);

    Prepared &p = prepared_[key];
    p.data.key = key;
    p.data.task = task.name;
    p.data.deviceUuid = uuid_;
    p.data.seed = seed;
    p.data.sets = sets;
    // Inputs of every set, generated on the device.
    for (size_t c = 0; c < task.configs.size(); ++c) {
      DeviceConfigData cd;
      cd.name = task.configs[c].name;
      for (int s = 0; s < sets; ++s) {
        DeviceSet set = layoutSet(task, task.configs[c]);
        set.seed = inputSeed(seed, c, size_t(s));
        void *slab = nullptr;
        check(mallocWaiting(&slab, set.slabBytes, memoryWait),
              "allocating " + std::to_string(set.slabBytes) + " bytes for config " + cd.name);
        p.slabs.push_back(slab);
        cudaIpcMemHandle_t h;
        check(cudaIpcGetMemHandle(&h, slab), "cudaIpcGetMemHandle");
        set.ipcHandle = ipcHandleHex(h);
        check(generateInputs(task, set, slab, stream_), "generating inputs");
        cd.sets.push_back(std::move(set));
      }
      p.data.configs.push_back(std::move(cd));
    }
    check(cudaStreamSynchronize(stream_), "generating inputs");
    double generated = secondsSince(start);

    // Expected outputs: the set cache first.
    auto cachePath = [&](size_t c, const DeviceSet &set) {
      if (setCache.empty())
        return std::string();
      return setCache + "/" +
             Sha256().field(kGeneratorVersion).field(referenceId).field(taskText).field(task.configs[c].name)
                 .field(std::to_string(set.seed)).hex() + ".exp";
    };
    int fromCache = 0, total = 0;
    for (size_t c = 0; c < task.configs.size(); ++c)
      for (int s = 0; s < sets; ++s) {
        DeviceSet &set = p.data.configs[c].sets[size_t(s)];
        ++total;
        std::string path = cachePath(c, set);
        if (!path.empty() && readExpectedFile(path, set, p.slabs[c * size_t(sets) + size_t(s)], stream_, staging_)) {
          set.expectedFromCache = true;
          set.expectedFile = path;
          ++fromCache;
        }
      }
    auto referenceStart = Clock::now();
    bool torchRan = false;
    if (req.torch) {
      std::string timingPath = req.torch->timingPath.value_or("");
      bool timingCached = timingPath.empty() || access(timingPath.c_str(), R_OK) == 0; // empty: not timed
      if (fromCache < total || !timingCached) {
        runTorchReference(*req.torch, p, req.manifest.value_or("") + ".pending");
        torchRan = true;
      }
    } else {
      if (!req.referenceSo)
        throw HolderError("reference_so: missing");
      std::string so = *req.referenceSo;
      ReferenceLibrary ref;
      bool loaded = false;
      for (size_t c = 0; c < task.configs.size(); ++c)
        for (int s = 0; s < sets; ++s) {
          DeviceSet &set = p.data.configs[c].sets[size_t(s)];
          if (set.expectedFromCache)
            continue;
          std::string err;
          if (!loaded && !(loaded = ref.load(so, err)))
            throw HolderError("reference: " + err);
          runHostReference(task, task.configs[c], set, p.slabs[c * size_t(sets) + size_t(s)], ref);
        }
    }
    double referenceSeconds = secondsSince(referenceStart);
    // What was computed goes to the set cache, where a set is small enough to be worth reading back.
    for (size_t c = 0; c < task.configs.size(); ++c)
      for (int s = 0; s < sets; ++s) {
        DeviceSet &set = p.data.configs[c].sets[size_t(s)];
        std::string path = cachePath(c, set);
        if (!set.expectedFromCache && !path.empty() && expectedBytes(set) <= cacheLimit &&
            writeExpectedFile(path, set, p.slabs[c * size_t(sets) + size_t(s)], stream_, staging_))
          set.expectedFile = path;
      }
    checkSums(p, true);
    std::string manifest = req.manifest.value_or("");
    if (!manifest.empty()) {
      std::string tmp = manifest + ".tmp" + std::to_string(getpid());
      if (!writeFile(tmp, deviceDataToJson(p.data).dump()) || rename(tmp.c_str(), manifest.c_str()) != 0)
        throw HolderError("cannot write " + manifest);
    }
    holder::Prepared prepared;
    prepared.manifest = manifest;
    prepared.bytes = p.data.totalBytes();
    prepared.seconds = secondsSince(start);
    prepared.generateSeconds = generated;
    prepared.referenceSeconds = referenceSeconds;
    prepared.setsFromCache = fromCache;
    prepared.sets = total;
    prepared.torchRan = torchRan;
    return holder::answerToJson(holder::Answer::make(std::move(prepared), key));
  }

  static uint64_t expectedBytes(const DeviceSet &set) {
    uint64_t t = 0;
    for (const DeviceBuffer &b : set.buffers)
      if (b.role == DeviceBuffer::Role::Expected)
        t += b.bytes;
    return t;
  }

  // reference.c on the host: this set's inputs copied from the device (one set on the host at a
  // time), the reference run in place, the outputs uploaded as the expected values.
  void runHostReference(const Task &task, const Config &config, DeviceSet &set, void *slab,
                        const ReferenceLibrary &ref) {
    std::vector<int64_t> counts = task.counts(config);
    HostArgs args;
    for (size_t i = 0; i < task.args.size(); ++i) {
      const Argument &a = task.args[i];
      args.scalars.push_back(a.isPointer() ? 0 : task.scalarValue(a, config));
      std::vector<unsigned char> buf;
      if (a.isPointer()) {
        buf.resize(size_t(counts[i]) * dtypeSize(a.dtype));
        if (const DeviceBuffer *in = set.find(i, DeviceBuffer::Role::Input))
          check(cudaMemcpy(buf.data(), static_cast<unsigned char *>(slab) + in->offset, in->bytes,
                           cudaMemcpyDeviceToHost),
                "reading inputs for the reference");
        else
          poisonBuffer(buf, a.dtype);
      }
      args.buffers.push_back(std::move(buf));
    }
    auto t0 = Clock::now();
    ref.invoke(task, args);
    set.referenceMs = secondsSince(t0) * 1000;
    for (const DeviceBuffer &b : set.buffers)
      if (b.role == DeviceBuffer::Role::Expected)
        check(cudaMemcpy(static_cast<unsigned char *>(slab) + b.offset, args.buffers[b.arg].data(), b.bytes,
                         cudaMemcpyHostToDevice),
              "uploading expected outputs");
  }

  // cudaperf-torch-reference maps this holder's slabs and writes the expected outputs into them.
  void runTorchReference(const holder::TorchReference &torch, Prepared &p, const std::string &pendingManifest) {
    if (pendingManifest == ".pending")
      throw HolderError("a pytorch-to-cuda task needs a manifest path");
    if (!writeFile(pendingManifest, deviceDataToJson(p.data).dump()))
      throw HolderError("cannot write " + pendingManifest);
    if (!torch.program)
      throw HolderError("torch.program: missing");
    std::vector<std::string> argv = {*torch.program, "--device-data", pendingManifest};
    for (const std::string &a : torch.args.value_or(std::vector<std::string>{}))
      argv.push_back(a);
    ProcessOptions po;
    po.timeoutSeconds = torch.timeoutSeconds.value_or(600.0);
    po.outputPath = torch.logPath.value_or("");
    po.maxCapturedBytes = 8192;
    ProcessResult r = runProcess(argv, po);
    unlink(pendingManifest.c_str());
    if (!r.succeeded())
      throw HolderError("cudaperf-torch-reference failed (" + r.describe() + "): " + r.output);
    // Its reference times per set.
    std::string text;
    if (readFile(pendingManifest + ".times", text)) {
      try {
        Json times = Json::parse(text);
        for (DeviceConfigData &c : p.data.configs)
          for (size_t s = 0; s < c.sets.size(); ++s)
            if (times.contains(c.name) && s < times[c.name].size())
              c.sets[s].referenceMs = times[c.name][s].get<double>();
      } catch (const std::exception &) {
      }
      unlink((pendingManifest + ".times").c_str());
    }
  }
};

} // namespace

int runHolder() {
  int protocol = fcntl(1, F_DUPFD_CLOEXEC, 3); // not inherited by cudaperf-torch-reference
  dup2(2, 1);
  Holder(protocol).run();
  return 0;
}

} // namespace cudaperf::worker
