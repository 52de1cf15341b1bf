// CUPTI Range Profiler in auto-range mode (docs/counters.md, "How"):
//   host:   cuptiProfilerHostInitialize(chip, counter availability) -> ConfigAddMetrics -> GetConfigImage
//   target: cuptiRangeProfilerEnable(ctx) -> GetCounterDataSize/CounterDataImageInitialize -> SetConfig -> Start
//   ...kernels (one range each)...  Stop -> DecodeData -> GetCounterDataInfo -> EvaluateToGpuValues per range
// Kernel replay: the counter data image holds rangesPerSession ranges; when it is full, the next launch's entry
// callback decodes it and starts a fresh session. Range i of a session is the i-th launch recorded in it.
// User replay: SetConfig once; per pass the caller calls beginPass (Start), repeats the workload, endPass
// (Stop) until Stop reports isAllPassSubmitted; then one DecodeData at end(). Launches are recorded in pass 0;
// later passes are only checked to repeat them (same count, same names).
// Kept set-up (ProfilerOptions::keepSetUp, user replay): end() leaves the host object, the config image and the
// range profiler with its counter data image in place; the next begin() resets the image and calls SetConfig again
// instead of building everything anew (beginReusing). What that relies on, from NVIDIA's CUPTI guide
// (docs.nvidia.com/cupti, main guide, a 13.x edition: 2.8 "CUPTI Profiler Host API", 2.9 "CUPTI Range Profiling
// API"; the API used is the CUDA 13.0 headers', whose cupti_range_profiler.h and cupti_profiler_host.h document the
// struct fields and little more):
//  - 2.8.2 Configuration: the config image "contains the scheduling details for the specified metrics, including
//    how many passes are required"; "Users can store the config image offline and can reuse it for profiling the
//    same list of metrics and for the same chip" -> one config image (and so replay_passes) for every session;
//  - 2.9.2 API usage: cuptiRangeProfilerEnable "creates a CUpti_RangeProfiler_Object, which stores intermediate
//    data and identifies other profiler APIs for the context" (one object per context, disabled once by
//    cuptiRangeProfilerDisable, "destroying all the resources allocated by CUPTI for range profiling"); the
//    guide's "Library support" chapter (3.1, OptiX) even suggests enabling profiling at context creation and
//    disabling it at context destruction, i.e. one enabled range profiler across many sessions;
//    cuptiRangeProfilerCounterDataImageInitialize "initializes the buffer allocated by the user. This can also be
//    used to reset the counter data image" -> the image sized once (GetCounterDataSize depends only on the metrics
//    and maxNumOfRanges, cupti_range_profiler.h:331-350) and reset per session;
//  - cuptiRangeProfilerSetConfig is called again before each session with passIndex 0, as application replay
//    does between replays ("reports the current passIndex and targetNestingLevel which users need to set in the
//    cuptiRangeProfilerSetConfig() API when the next replay is done") and as restart() below does for kernel
//    replay; DecodeData of the previous session has run ("should be called after cuptiRangeProfilerStop",
//    cupti_range_profiler.h:311-314) before the image is reset;
//  - 2.8.3 Evaluation: cuptiProfilerHostEvaluateToGpuValues takes the host object and a counter data image; the
//    host object is built from the chip, the counter availability image and the metrics, all the same for every
//    session on one context.
// Nothing else changes between the two ways: same metrics, same SetConfig parameters (auto range, user replay,
// maxRangesPerPass), same decoding and evaluation.
#include "cudaperf/Counters/KernelProfiler.h"

#include "cudaperf/Counters/CounterMetrics.h"
#include "cudaperf/Counters/Occupancy.h"

#include <cupti_driver_cbid.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>

namespace cudaperf::counters {

namespace {

// CUPTI takes at most one subscriber per process.
std::atomic<bool> ownSubscriberHeld{false};

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Adds the host time of a phase to seconds[key] (docs/counters.md, "profiler_seconds"): from construction
// or next() to next(), stop() or the end of the scope. Measures only; never throws.
class PhaseTimer {
public:
  PhaseTimer(std::map<std::string, double> &seconds, const char *key)
      : seconds_(seconds), key_(key), start_(Clock::now()) {}
  ~PhaseTimer() { stop(); }
  PhaseTimer(const PhaseTimer &) = delete;
  PhaseTimer &operator=(const PhaseTimer &) = delete;
  void next(const char *key) {
    stop();
    key_ = key;
    start_ = Clock::now();
  }
  void stop() {
    if (!key_)
      return;
    try {
      seconds_[key_] += secondsSince(start_);
    } catch (...) {
    }
    key_ = nullptr;
  }

private:
  std::map<std::string, double> &seconds_;
  const char *key_;
  Clock::time_point start_;
};

template <class Params> Params makeParams(size_t structSize) {
  Params p;
  std::memset(&p, 0, sizeof p);
  p.structSize = structSize;
  return p;
}

std::string cuptiText(CUptiResult r) {
  const char *s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
    return "CUPTI error " + std::to_string(int(r));
  return s;
}

std::string driverText(CUresult r) {
  const char *s = nullptr;
  if (cuGetErrorName(r, &s) != CUDA_SUCCESS || !s)
    return "CUDA error " + std::to_string(int(r));
  return s;
}

// A failed CUPTI call in words a user can act on.
std::string describe(const char *call, CUptiResult r) {
  std::string base = std::string(call) + " returned " + cuptiText(r);
  switch (r) {
  case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
  case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    return "profiling not permitted (NVreg_RestrictProfilingToAdminUsers=1?): " + base;
  case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    return "another CUPTI client is active (ncu, nsys, a debugger or another profiler): " + base;
  case CUPTI_ERROR_NOT_SUPPORTED:
  case CUPTI_ERROR_INVALID_DEVICE:
  case CUPTI_ERROR_INVALID_CHIP_NAME:
  case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
  case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
  case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
  case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
  case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
  case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    return "unsupported device or configuration: " + base;
  case CUPTI_ERROR_NOT_INITIALIZED:
  case CUPTI_ERROR_NOT_COMPATIBLE:
    return "CUPTI unusable (missing, or not matching the driver): " + base;
  case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    return "the legacy CUPTI profiler API is in use in this process: " + base;
  default:
    return base;
  }
}

std::string supportLevel(CUpti_Profiler_Support_Level level) {
  switch (level) {
  case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
  case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
  case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
  default: return "unknown";
  }
}

bool isLaunchCallback(CUpti_CallbackId cbid) {
  const auto &ids = KernelProfiler::launchCallbackIds();
  return std::find(ids.begin(), ids.end(), cbid) != ids.end();
}

// Leading members of the driver's launch parameter structs (as in generated_cuda_meta.h, which does not
// compile on its own: it needs cuda.h's legacy _v1 types). cuLaunchKernel, cuLaunchCooperativeKernel and their
// _ptsz forms start with the function, grid, block and dynamic shared memory; cuLaunchKernelEx[_ptsz] with the
// launch config (CUlaunchConfig: grid, block, sharedMemBytes, ...), then the function. The "function" may be a
// CUkernel cast to CUfunction: the runtime (<<<>>>, cudaLaunchKernel) loads code with cuLibrary* and launches
// CUkernel handles, which cuFuncGetAttribute does not take (cuKernelGetAttribute does).
struct FunctionFirstParams {
  CUfunction f;
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
};
struct LaunchExParams {
  const CUlaunchConfig *config;
  CUfunction f;
};

struct LaunchShape {
  CUfunction f = nullptr;
  long long threadsPerBlock = 0; // 0: not known
  size_t dynamicSharedBytes = 0;
};

LaunchShape launchShape(CUpti_CallbackId cbid, const void *params) {
  LaunchShape shape;
  if (!params)
    return shape;
  switch (cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
    const auto *p = static_cast<const FunctionFirstParams *>(params);
    shape.f = p->f;
    shape.threadsPerBlock = (long long)p->blockDimX * p->blockDimY * p->blockDimZ;
    shape.dynamicSharedBytes = p->sharedMemBytes;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    const auto *p = static_cast<const LaunchExParams *>(params);
    shape.f = p->f;
    if (p->config) {
      shape.threadsPerBlock = (long long)p->config->blockDimX * p->config->blockDimY * p->config->blockDimZ;
      shape.dynamicSharedBytes = p->config->sharedMemBytes;
    }
    break;
  }
  default:
    break;
  }
  return shape;
}

struct PendingLaunch {
  uint32_t correlationId = 0;
  KernelCounters counters; // name, launch, and the function-attribute metrics
};

void CUPTIAPI ownSubscriberCallback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                    const void *cbdata) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || !userdata || !cbdata)
    return;
  static_cast<KernelProfiler *>(userdata)->onDriverApiCallback(cbid, static_cast<const CUpti_CallbackData *>(cbdata));
}

} // namespace

struct KernelProfiler::State {
  std::mutex mutex;
  CUcontext ctx = nullptr;
  ProfilerOptions options;
  bool active = false;         // between a successful begin() and end()
  bool sessionRunning = false; // range profiler started and not yet stopped
  bool broken = false;         // the profiler failed mid-way: later launches run unprofiled
  bool capNoted = false;
  std::string beginFailure;    // why begin() failed
  std::string collectFailure;  // first failure after begin()
  std::vector<std::string> counterMetrics; // in the config image
  std::vector<const char *> counterMetricPtrs;
  bool wantRegisters = false;
  bool wantOccupancy = false;
  CUdevice device = 0;
  int warpSize = 0, maxThreadsPerSm = 0; // for the theoretical occupancy
  std::set<std::string> attributeFailuresNoted;
  // User replay (options.replay == Replay::User)
  bool userReplay = false;
  bool allPassesSubmitted = false; // cuptiRangeProfilerStop said so
  size_t passesRun = 0;            // passes begun and ended
  size_t passLaunches = 0;         // launches seen in the running pass
  std::vector<std::string> passZeroNames; // every launch of pass 0, recorded or not, in order
  bool passMismatchNoted = false;
  bool capacityNoted = false;
  std::map<std::string, std::string> dropped;
  std::vector<std::string> notes;
  std::set<std::string> evaluationFailuresNoted;
  std::string gpuName, computeCapability, chipName;
  size_t passes = 0;
  CUpti_Profiler_Host_Object *host = nullptr;
  CUpti_RangeProfiler_Object *rangeProfiler = nullptr;
  std::vector<uint8_t> configImage, counterDataImage, counterAvailability;
  CUpti_SubscriberHandle subscriber = nullptr;
  bool setUpKept = false;   // end() kept host, images and range profiler for the next begin() (keepSetUp)
  bool setUpReused = false; // this session's begin() took them over from the previous session
  std::vector<PendingLaunch> pending; // recorded in the running session, not yet decoded
  std::vector<std::pair<uint32_t, size_t>> attributeOnly; // correlation id -> index in results (no counters)
  std::vector<KernelCounters> results;
  int launchesSeen = 0;
  size_t rangesDecoded = 0;    // numTotalRanges summed over the decoded images
  bool rangesMismatched = false; // an image's range count differed from its launches
  size_t profiled = 0;
  size_t notProfiled = 0;
  // Host seconds per phase (PhaseTimer keys; docs/counters.md, "profiler_seconds"), and when the first
  // user-replay pass began (the "passes" wall time runs from there to the last endPass()).
  std::map<std::string, double> seconds;
  Clock::time_point firstPassStart{};

  std::string failBegin(std::string why) {
    beginFailure = std::move(why);
    return beginFailure;
  }
  // The launches recorded since the last decode will get no counters: count them, say why.
  void abandonPending(std::string why) {
    notProfiled += pending.size();
    pending.clear();
    failCollect(std::move(why));
  }
  void failCollect(std::string why) {
    broken = true;
    notes.push_back("collection stopped: " + why);
    if (collectFailure.empty())
      collectFailure = std::move(why);
  }

  std::string readGpu(CUdevice &device);
  std::string subscribe(KernelProfiler *owner);
  void unsubscribe();
  void takeSetUp(State &kept);
  std::string setUpCounters(CUdevice device, const std::vector<std::string> &candidates);
  CUptiResult createHost(CUpti_Profiler_Host_Object **out);
  void destroyHost(CUpti_Profiler_Host_Object *&h);
  CUptiResult addMetrics(CUpti_Profiler_Host_Object *h, const std::vector<std::string> &names);
  std::string startRangeProfiler();
  std::string configure();
  std::string startSession();
  std::string configureAndStart();
  void readLaunchAttributes(const LaunchShape &shape, KernelCounters &out);
  void noteAttributeFailure(const std::string &what, const std::string &why);
  void disableRangeProfiler();
  bool stopSession(); // cuptiRangeProfilerStop; false (pending abandoned) when refused
  void collect(); // stop, decode, evaluate the running session (kernel replay)
  void collectUserReplay(); // decode and evaluate after the last pass (user replay)
  void decodeAndEvaluate();
  bool restart();
  void evaluateRange(size_t rangeIndex, KernelCounters &out);
  void onLaunchEnter(CUpti_CallbackId cbid, const CUpti_CallbackData &data);
  void onLaunchExit(const CUpti_CallbackData &data);
  void teardown();
};

std::string KernelProfiler::State::readGpu(CUdevice &device) {
  PhaseTimer timer(seconds, "device_query");
  CUresult r = cuCtxPushCurrent(ctx);
  if (r != CUDA_SUCCESS)
    return "cuCtxPushCurrent failed: " + driverText(r);
  r = cuCtxGetDevice(&device);
  CUcontext popped = nullptr;
  cuCtxPopCurrent(&popped);
  if (r != CUDA_SUCCESS)
    return "cuCtxGetDevice failed: " + driverText(r);
  this->device = device;
  if (cuDeviceGetAttribute(&warpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE, device) != CUDA_SUCCESS)
    warpSize = 0;
  if (cuDeviceGetAttribute(&maxThreadsPerSm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device) !=
      CUDA_SUCCESS)
    maxThreadsPerSm = 0;
  char name[256] = {};
  if (cuDeviceGetName(name, sizeof name - 1, device) == CUDA_SUCCESS)
    gpuName = name;
  int major = 0, minor = 0;
  if (cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) == CUDA_SUCCESS &&
      cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) == CUDA_SUCCESS)
    computeCapability = std::to_string(major) + "." + std::to_string(minor);
  return "";
}

// cuptiSubscribe_v2 with the launch callbacks enabled (ProfilerOptions::ownSubscriber). "" or why not; on
// failure no subscription is left (the caller tears down the rest).
std::string KernelProfiler::State::subscribe(KernelProfiler *owner) {
  if (ownSubscriberHeld.exchange(true))
    return "another KernelProfiler of this process holds the CUPTI subscriber";
  char oldName[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  CUpti_SubscriberParams sp;
  std::memset(&sp, 0, sizeof sp);
  sp.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  sp.subscriberName = "cudaperf-counters";
  sp.oldSubscriberName = oldName;
  sp.oldSubscriberSize = sizeof oldName - 1;
  CUptiResult r = cuptiSubscribe_v2(&subscriber, ownSubscriberCallback, owner, &sp);
  if (r != CUPTI_SUCCESS) {
    ownSubscriberHeld = false;
    subscriber = nullptr;
    std::string why = describe("cuptiSubscribe_v2", r);
    if (oldName[0])
      why += std::string(" (held by ") + oldName + ")";
    return why;
  }
  for (CUpti_CallbackId id : launchCallbackIds()) {
    r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
    if (r != CUPTI_SUCCESS) {
      unsubscribe();
      return describe("cuptiEnableCallback", r);
    }
  }
  return "";
}

// Undoes subscribe() where it succeeded; called outside the mutex (a callback in flight may wait for it).
void KernelProfiler::State::unsubscribe() {
  if (!subscriber)
    return;
  cuptiUnsubscribe(subscriber);
  subscriber = nullptr;
  ownSubscriberHeld = false;
}

// The set-up a previous session kept (keepSetUp): device facts, metric lists, images, host object and range
// profiler move here; `kept` holds nothing to tear down afterwards.
void KernelProfiler::State::takeSetUp(State &kept) {
  device = kept.device;
  warpSize = kept.warpSize;
  maxThreadsPerSm = kept.maxThreadsPerSm;
  gpuName = std::move(kept.gpuName);
  computeCapability = std::move(kept.computeCapability);
  chipName = std::move(kept.chipName);
  dropped = std::move(kept.dropped);
  counterMetrics = std::move(kept.counterMetrics);
  counterMetricPtrs.clear();
  for (const std::string &m : counterMetrics)
    counterMetricPtrs.push_back(m.c_str());
  wantRegisters = kept.wantRegisters;
  wantOccupancy = kept.wantOccupancy;
  passes = kept.passes;
  configImage = std::move(kept.configImage);
  counterDataImage = std::move(kept.counterDataImage);
  counterAvailability = std::move(kept.counterAvailability);
  host = kept.host;
  kept.host = nullptr;
  rangeProfiler = kept.rangeProfiler;
  kept.rangeProfiler = nullptr;
  kept.setUpKept = false;
}

CUptiResult KernelProfiler::State::createHost(CUpti_Profiler_Host_Object **out) {
  PhaseTimer timer(seconds, "host_initialize");
  auto p = makeParams<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chipName.c_str();
  p.pCounterAvailabilityImage = counterAvailability.empty() ? nullptr : counterAvailability.data();
  CUptiResult r = cuptiProfilerHostInitialize(&p);
  *out = r == CUPTI_SUCCESS ? p.pHostObject : nullptr;
  return r;
}

void KernelProfiler::State::destroyHost(CUpti_Profiler_Host_Object *&h) {
  if (!h)
    return;
  PhaseTimer timer(seconds, "host_deinitialize");
  auto p = makeParams<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = h;
  cuptiProfilerHostDeinitialize(&p);
  h = nullptr;
}

CUptiResult KernelProfiler::State::addMetrics(CUpti_Profiler_Host_Object *h, const std::vector<std::string> &names) {
  PhaseTimer timer(seconds, "host_add_metrics");
  std::vector<const char *> ptrs;
  for (const std::string &n : names)
    ptrs.push_back(n.c_str());
  auto p = makeParams<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  p.pHostObject = h;
  p.ppMetricNames = ptrs.data();
  p.numMetrics = ptrs.size();
  return cuptiProfilerHostConfigAddMetrics(&p);
}

std::string KernelProfiler::State::setUpCounters(CUdevice device, const std::vector<std::string> &candidates) {
  // cuptiProfilerInitialize runs once per process: later profilers wait for it at most.
  PhaseTimer timer(seconds, "profiler_initialize");
  static std::once_flag initOnce;
  static CUptiResult initResult = CUPTI_SUCCESS;
  std::call_once(initOnce, [] {
    auto p = makeParams<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    initResult = cuptiProfilerInitialize(&p);
  });
  if (initResult != CUPTI_SUCCESS)
    return describe("cuptiProfilerInitialize", initResult);

  timer.next("device_supported"); // cuptiProfilerDeviceSupported, cuptiDeviceGetChipName
  auto supported = makeParams<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  supported.cuDevice = device;
  supported.api = CUPTI_PROFILER_RANGE_PROFILING;
  if (CUptiResult r = cuptiProfilerDeviceSupported(&supported); r != CUPTI_SUCCESS)
    return describe("cuptiProfilerDeviceSupported", r);
  if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    std::string why = "unsupported device for range profiling:";
    auto add = [&](const char *what, CUpti_Profiler_Support_Level level) {
      if (level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
        why += std::string(" ") + what + " " + supportLevel(level) + ";";
    };
    add("architecture", supported.architecture);
    add("SLI", supported.sli);
    add("vGPU", supported.vGpu);
    add("confidential compute", supported.confidentialCompute);
    add("CMP", supported.cmp);
    add("WSL", supported.wsl);
    return why;
  }

  auto chip = makeParams<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = size_t(device);
  if (CUptiResult r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS || !chip.pChipName)
    return describe("cuptiDeviceGetChipName", r);
  chipName = chip.pChipName;

  // Size query, then the image itself.
  timer.next("counter_availability");
  auto avail = makeParams<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  avail.ctx = ctx;
  if (CUptiResult r = cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS)
    return describe("cuptiProfilerGetCounterAvailability", r);
  counterAvailability.assign(avail.counterAvailabilityImageSize, 0);
  avail.pCounterAvailabilityImage = counterAvailability.data();
  if (CUptiResult r = cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS)
    return describe("cuptiProfilerGetCounterAvailability", r);

  // All metrics at once; if the host configuration refuses the set, find the culprits one by one on fresh
  // host objects and keep the rest. (createHost, addMetrics and destroyHost time themselves.)
  timer.stop();
  if (CUptiResult r = createHost(&host); r != CUPTI_SUCCESS)
    return describe("cuptiProfilerHostInitialize", r);
  std::vector<std::string> kept = candidates;
  if (addMetrics(host, kept) != CUPTI_SUCCESS) {
    destroyHost(host);
    kept.clear();
    for (const std::string &m : candidates) {
      CUpti_Profiler_Host_Object *probe = nullptr;
      CUptiResult r = createHost(&probe);
      if (r == CUPTI_SUCCESS)
        r = addMetrics(probe, {m});
      destroyHost(probe);
      if (r == CUPTI_SUCCESS)
        kept.push_back(m);
      else
        dropped[m] = "not accepted by the CUPTI host configuration for chip " + chipName + ": " +
                     describe("cuptiProfilerHostConfigAddMetrics", r);
    }
    if (kept.empty())
      return "no requested counter metric is accepted by CUPTI on chip " + chipName;
    if (CUptiResult r = createHost(&host); r != CUPTI_SUCCESS)
      return describe("cuptiProfilerHostInitialize", r);
    if (CUptiResult r = addMetrics(host, kept); r != CUPTI_SUCCESS)
      return describe("cuptiProfilerHostConfigAddMetrics", r);
  }
  counterMetrics = kept;
  counterMetricPtrs.clear();
  for (const std::string &m : counterMetrics)
    counterMetricPtrs.push_back(m.c_str());

  timer.next("config_image"); // the config image's size, the image, the number of passes
  auto size = makeParams<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host;
  if (CUptiResult r = cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS)
    return describe("cuptiProfilerHostGetConfigImageSize", r);
  configImage.assign(size.configImageSize, 0);
  auto image = makeParams<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = host;
  image.configImageSize = configImage.size();
  image.pConfigImage = configImage.data();
  if (CUptiResult r = cuptiProfilerHostGetConfigImage(&image); r != CUPTI_SUCCESS)
    return describe("cuptiProfilerHostGetConfigImage", r);
  auto passesParams = makeParams<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passesParams.configImageSize = configImage.size();
  passesParams.pConfigImage = configImage.data();
  if (cuptiProfilerHostGetNumOfPasses(&passesParams) == CUPTI_SUCCESS)
    passes = passesParams.numOfPasses;
  return "";
}

// Counter data image (re)initialised and bound, then started.
std::string KernelProfiler::State::configureAndStart() {
  if (std::string why = configure(); !why.empty())
    return why;
  return startSession();
}

// Counter data image (re)initialised and bound to the configuration.
std::string KernelProfiler::State::configure() {
  PhaseTimer timer(seconds, "counter_data_image");
  auto init = makeParams<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = rangeProfiler;
  init.counterDataSize = counterDataImage.size();
  init.pCounterData = counterDataImage.data();
  if (CUptiResult r = cuptiRangeProfilerCounterDataImageInitialize(&init); r != CUPTI_SUCCESS)
    return describe("cuptiRangeProfilerCounterDataImageInitialize", r);

  timer.next("set_config");
  auto config = makeParams<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  config.pRangeProfilerObject = rangeProfiler;
  config.configSize = configImage.size();
  config.pConfig = configImage.data();
  config.counterDataImageSize = counterDataImage.size();
  config.pCounterDataImage = counterDataImage.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = userReplay ? CUPTI_UserReplay : CUPTI_KernelReplay;
  config.maxRangesPerPass = options.rangesPerSession;
  config.numNestingLevels = 1; // auto range: one level
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  if (CUptiResult r = cuptiRangeProfilerSetConfig(&config); r != CUPTI_SUCCESS)
    return describe(userReplay ? "cuptiRangeProfilerSetConfig (user replay)" : "cuptiRangeProfilerSetConfig", r);
  return "";
}

std::string KernelProfiler::State::startSession() {
  PhaseTimer timer(seconds, "pass_start");
  auto start = makeParams<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = rangeProfiler;
  if (CUptiResult r = cuptiRangeProfilerStart(&start); r != CUPTI_SUCCESS)
    return describe("cuptiRangeProfilerStart", r);
  sessionRunning = true;
  return "";
}

std::string KernelProfiler::State::startRangeProfiler() {
  PhaseTimer timer(seconds, "range_profiler_enable");
  auto enable = makeParams<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = ctx;
  if (CUptiResult r = cuptiRangeProfilerEnable(&enable); r != CUPTI_SUCCESS)
    return describe("cuptiRangeProfilerEnable", r);
  rangeProfiler = enable.pRangeProfilerObject;

  timer.next("counter_data_image");
  auto size = makeParams<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = rangeProfiler;
  size.pMetricNames = counterMetricPtrs.data();
  size.numMetrics = counterMetricPtrs.size();
  size.maxNumOfRanges = options.rangesPerSession;
  size.maxNumRangeTreeNodes = uint32_t(options.rangesPerSession);
  if (CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&size); r != CUPTI_SUCCESS)
    return describe("cuptiRangeProfilerGetCounterDataSize", r);
  counterDataImage.assign(size.counterDataSize, 0);
  timer.stop();
  // User replay: the caller starts each pass (beginPass).
  return userReplay ? configure() : configureAndStart();
}

void KernelProfiler::State::disableRangeProfiler() {
  if (!rangeProfiler)
    return;
  PhaseTimer timer(seconds, "range_profiler_disable");
  if (sessionRunning) {
    auto stop = makeParams<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = rangeProfiler;
    cuptiRangeProfilerStop(&stop);
    sessionRunning = false;
  }
  auto disable = makeParams<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
  disable.pRangeProfilerObject = rangeProfiler;
  cuptiRangeProfilerDisable(&disable);
  rangeProfiler = nullptr;
}

void KernelProfiler::State::evaluateRange(size_t rangeIndex, KernelCounters &out) {
  auto evaluate = [&](const char *const *names, size_t count, double *values) {
    auto p = makeParams<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    p.pHostObject = host;
    p.pCounterDataImage = counterDataImage.data();
    p.counterDataImageSize = counterDataImage.size();
    p.rangeIndex = rangeIndex;
    p.ppMetricNames = const_cast<const char **>(names);
    p.numMetrics = count;
    p.pMetricValues = values;
    return cuptiProfilerHostEvaluateToGpuValues(&p);
  };
  std::vector<double> values(counterMetricPtrs.size(), 0.0);
  if (evaluate(counterMetricPtrs.data(), counterMetricPtrs.size(), values.data()) == CUPTI_SUCCESS) {
    for (size_t i = 0; i < counterMetrics.size(); ++i)
      out.metrics[counterMetrics[i]] = values[i];
    return;
  }
  // One metric that fails to evaluate must not cost the others.
  for (size_t i = 0; i < counterMetrics.size(); ++i) {
    double value = 0;
    CUptiResult r = evaluate(&counterMetricPtrs[i], 1, &value);
    if (r == CUPTI_SUCCESS)
      out.metrics[counterMetrics[i]] = value;
    else if (evaluationFailuresNoted.insert(counterMetrics[i]).second)
      notes.push_back(counterMetrics[i] + " could not be evaluated (first at launch " + std::to_string(out.launch) +
                      "): " + describe("cuptiProfilerHostEvaluateToGpuValues", r));
  }
}

void KernelProfiler::State::collect() {
  if (!sessionRunning)
    return;
  if (!stopSession())
    return;
  if (!allPassesSubmitted)
    notes.push_back("cuptiRangeProfilerStop reported passes not submitted (kernel replay should submit all)");
  decodeAndEvaluate();
}

bool KernelProfiler::State::stopSession() {
  PhaseTimer timer(seconds, "pass_stop");
  sessionRunning = false;
  auto stop = makeParams<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = rangeProfiler;
  CUptiResult r = cuptiRangeProfilerStop(&stop);
  if (r != CUPTI_SUCCESS) {
    abandonPending(describe("cuptiRangeProfilerStop", r));
    return false;
  }
  allPassesSubmitted = stop.isAllPassSubmitted != 0;
  return true;
}

// After the last pass of user replay. A pass still running is stopped; fewer passes than CUPTI needs
// leave nothing to decode.
void KernelProfiler::State::collectUserReplay() {
  if (sessionRunning) {
    if (!stopSession())
      return;
    ++passesRun;
  }
  if (counterMetrics.empty() || broken)
    return;
  if (!allPassesSubmitted) {
    abandonPending("user replay ended after " + std::to_string(passesRun) + " passes, before CUPTI had all it needs (" +
                std::to_string(passes) + " by the host configuration)");
    return;
  }
  notes.push_back("user replay: the workload ran once per pass, " + std::to_string(passesRun) + " passes");
  decodeAndEvaluate();
}

void KernelProfiler::State::decodeAndEvaluate() {
  PhaseTimer timer(seconds, "decode");
  auto decode = makeParams<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = rangeProfiler;
  CUptiResult r = cuptiRangeProfilerDecodeData(&decode);
  if (r != CUPTI_SUCCESS) {
    abandonPending(describe("cuptiRangeProfilerDecodeData", r));
    return;
  }
  if (decode.numOfRangeDropped)
    notes.push_back(std::to_string(decode.numOfRangeDropped) + " ranges dropped while decoding");

  timer.next("evaluate"); // the image's range count, then every range's metric values
  auto info = makeParams<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = counterDataImage.data();
  info.counterDataImageSize = counterDataImage.size();
  r = cuptiRangeProfilerGetCounterDataInfo(&info);
  if (r != CUPTI_SUCCESS) {
    abandonPending(describe("cuptiRangeProfilerGetCounterDataInfo", r));
    return;
  }
  size_t ranges = info.numTotalRanges;
  rangesDecoded += ranges;
  if (ranges != pending.size()) {
    rangesMismatched = true;
    notes.push_back("a session recorded " + std::to_string(ranges) + " ranges for " + std::to_string(pending.size()) +
                    " launches seen (kernels launched through an entry point not intercepted?); ranges were "
                    "matched to launches in order");
  }
  size_t matched = std::min(ranges, pending.size());
  for (size_t i = 0; i < matched; ++i) {
    KernelCounters k = std::move(pending[i].counters);
    evaluateRange(i, k);
    results.push_back(std::move(k));
  }
  notProfiled += pending.size() - matched;
  pending.clear();
}

// A fresh session after a full counter data image: reset and rebind it; if CUPTI refuses, re-enable.
bool KernelProfiler::State::restart() {
  std::string why = configureAndStart();
  if (why.empty())
    return true;
  notes.push_back("restarting the session in place failed (" + why + "); re-enabling the range profiler");
  disableRangeProfiler();
  why = startRangeProfiler();
  if (why.empty())
    return true;
  failCollect(why);
  return false;
}

void KernelProfiler::State::noteAttributeFailure(const std::string &what, const std::string &why) {
  if (attributeFailuresNoted.insert(what).second)
    notes.push_back(what + " unavailable (first at launch " + std::to_string(launchesSeen - 1) + "): " + why);
}

// Registers per thread and theoretical occupancy from the launch itself (no counter pass).
void KernelProfiler::State::readLaunchAttributes(const LaunchShape &shape, KernelCounters &out) {
  PhaseTimer timer(seconds, "launch_attributes");
  if (!shape.f) {
    if (wantRegisters)
      noteAttributeFailure("launch__registers_per_thread", "the launch callback carried no function handle");
    if (wantOccupancy)
      noteAttributeFailure("sm__maximum_warps_per_active_cycle_pct",
                           "the launch callback carried no function handle");
    return;
  }
  if (wantRegisters) {
    int registers = 0;
    CUresult rf = cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, shape.f);
    CUresult rk = CUDA_SUCCESS;
    if (rf != CUDA_SUCCESS) // a CUkernel handle (runtime launches)
      rk = cuKernelGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, reinterpret_cast<CUkernel>(shape.f), device);
    if (rf == CUDA_SUCCESS || rk == CUDA_SUCCESS)
      out.metrics["launch__registers_per_thread"] = registers;
    else
      noteAttributeFailure("launch__registers_per_thread", "cuFuncGetAttribute returned " + driverText(rf) +
                                                               ", cuKernelGetAttribute returned " + driverText(rk));
  }
  if (wantOccupancy) {
    const char *metric = "sm__maximum_warps_per_active_cycle_pct";
    if (shape.threadsPerBlock <= 0 || shape.threadsPerBlock > 1 << 20) {
      noteAttributeFailure(metric, "block size not known from the launch parameters");
      return;
    }
    if (warpSize <= 0 || maxThreadsPerSm <= 0) {
      noteAttributeFailure(metric, "warp size or maximum threads per SM not known for the device");
      return;
    }
    int blocks = 0;
    // The occupancy API takes a CUkernel cast to CUfunction; the function of the current context is the
    // fallback should a driver refuse that.
    CUresult r = cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, shape.f, int(shape.threadsPerBlock),
                                                             shape.dynamicSharedBytes);
    if (r != CUDA_SUCCESS) {
      CUfunction fn = nullptr;
      CUresult rk = cuKernelGetFunction(&fn, reinterpret_cast<CUkernel>(shape.f));
      CUresult r2 = rk == CUDA_SUCCESS && fn ? cuOccupancyMaxActiveBlocksPerMultiprocessor(
                                                   &blocks, fn, int(shape.threadsPerBlock), shape.dynamicSharedBytes)
                                             : rk;
      if (r2 != CUDA_SUCCESS) {
        noteAttributeFailure(metric, "cuOccupancyMaxActiveBlocksPerMultiprocessor returned " + driverText(r) +
                                         " (through cuKernelGetFunction: " + driverText(r2) + ")");
        return;
      }
    }
    double pct = theoreticalOccupancyPct(blocks, shape.threadsPerBlock, warpSize, maxThreadsPerSm);
    if (pct >= 0)
      out.metrics[metric] = pct;
  }
}

void KernelProfiler::State::onLaunchEnter(CUpti_CallbackId cbid, const CUpti_CallbackData &data) {
  bool counting = !counterMetrics.empty();
  if (userReplay && counting) {
    // Launches outside a pass are not profiled by CUPTI and are not the workload: ignored.
    if (!sessionRunning)
      return;
    const char *symbol = data.symbolName ? data.symbolName : "";
    size_t index = passLaunches++;
    if (passesRun > 0) {
      // A later pass replays pass 0's launches; they were recorded then.
      if (!passMismatchNoted && (index >= passZeroNames.size() || passZeroNames[index] != symbol)) {
        passMismatchNoted = true;
        notes.push_back("user replay pass " + std::to_string(passesRun) + " launched " +
                        (index >= passZeroNames.size() ? std::string("more kernels than pass 0")
                                                       : "'" + std::string(symbol) + "' where pass 0 launched '" +
                                                             passZeroNames[index] + "'") +
                        " at launch " + std::to_string(index) +
                        ": the workload differs between passes, so counters of different passes do not belong "
                        "to the same launches");
      }
      return;
    }
    passZeroNames.push_back(symbol);
  }
  int launch = launchesSeen++;
  if (options.maxKernels && profiled >= options.maxKernels) {
    if (!capNoted) {
      capNoted = true;
      notes.push_back("kernel cap of " + std::to_string(options.maxKernels) + " reached at launch " +
                      std::to_string(launch) + ": later launches are not profiled");
    }
    if (!userReplay)
      collect(); // stops the last session for good
    ++notProfiled;
    return;
  }
  if (broken || (counting && !sessionRunning)) {
    ++notProfiled;
    return;
  }
  if (counting && pending.size() >= options.rangesPerSession) {
    if (userReplay) {
      // A pass cannot be cut short: launches past the image's capacity are left out.
      if (!capacityNoted) {
        capacityNoted = true;
        notes.push_back("more launches in a pass than the counter data image holds (" +
                        std::to_string(options.rangesPerSession) + " ranges): launches from " +
                        std::to_string(launch) + " on are not profiled");
      }
      ++notProfiled;
      return;
    }
    collect();
    if (broken || !restart()) {
      ++notProfiled;
      return;
    }
  }
  LaunchShape shape = launchShape(cbid, data.functionParams);
  PendingLaunch p;
  p.correlationId = data.correlationId;
  if (data.symbolName && *data.symbolName) {
    p.counters.name = data.symbolName;
  } else if (const char *name = nullptr; shape.f && cuFuncGetName(&name, shape.f) == CUDA_SUCCESS && name) {
    p.counters.name = name;
  } else {
    p.counters.name = "<unknown>";
  }
  p.counters.demangled = demangleKernelName(p.counters.name);
  p.counters.launch = launch;
  readLaunchAttributes(shape, p.counters);
  ++profiled;
  if (counting) {
    pending.push_back(std::move(p));
  } else {
    attributeOnly.emplace_back(p.correlationId, results.size());
    results.push_back(std::move(p.counters));
  }
}

// A launch the driver rejected ran nothing and left no range: forget it.
void KernelProfiler::State::onLaunchExit(const CUpti_CallbackData &data) {
  const CUresult *rc = static_cast<const CUresult *>(data.functionReturnValue);
  if (!rc || *rc == CUDA_SUCCESS)
    return;
  auto it = std::find_if(pending.begin(), pending.end(),
                         [&](const PendingLaunch &p) { return p.correlationId == data.correlationId; });
  std::string what;
  if (it != pending.end()) {
    what = std::to_string(it->counters.launch);
    pending.erase(it);
  } else {
    auto a = std::find_if(attributeOnly.begin(), attributeOnly.end(),
                          [&](const auto &e) { return e.first == data.correlationId; });
    if (a == attributeOnly.end())
      return;
    what = std::to_string(results[a->second].launch);
    results.erase(results.begin() + long(a->second));
    for (auto &e : attributeOnly)
      if (e.second > a->second)
        --e.second;
    attributeOnly.erase(a);
  }
  if (profiled)
    --profiled;
  notes.push_back("launch " + what + " failed (" + driverText(*rc) + "): nothing to profile");
}

void KernelProfiler::State::teardown() {
  disableRangeProfiler();
  destroyHost(host);
}

KernelProfiler::KernelProfiler() : state_(std::make_unique<State>()) {}

KernelProfiler::~KernelProfiler() {
  try {
    end();
    release();
  } catch (...) {
  }
}

const std::vector<CUpti_CallbackId> &KernelProfiler::launchCallbackIds() {
  static const std::vector<CUpti_CallbackId> ids = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};
  return ids;
}

std::string KernelProfiler::begin(CUcontext ctx, const std::vector<std::string> &metrics) {
  ProfilerOptions options;
  options.metrics = metrics;
  return begin(ctx, options);
}

std::string KernelProfiler::begin(CUcontext ctx, const ProfilerOptions &options) {
  if (state_->active || !state_->setUpKept)
    return beginFresh(ctx, options); // every begin() without a kept set-up: as it always was
  std::unique_ptr<State> kept = std::move(state_);
  std::string whyNot;
  try {
    state_ = std::make_unique<State>();
  } catch (...) {
    state_ = std::move(kept);
    release();
    return beginFresh(ctx, options);
  }
  whyNot = beginReusing(std::move(kept), ctx, options);
  if (whyNot.empty())
    return "";
  // Not reused (already torn down): set up from scratch, the attempt's phases and the reason kept.
  std::map<std::string, double> attempt = state_->seconds;
  std::string why = beginFresh(ctx, options);
  State &s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  try {
    for (const auto &[phase, seconds] : attempt)
      s.seconds[phase] += seconds;
    s.notes.insert(s.notes.begin(), "the profiler set-up kept from the previous session was not reused (" + whyNot +
                                        "): set up again");
  } catch (...) {
  }
  return why;
}

std::string KernelProfiler::beginReusing(std::unique_ptr<State> kept, CUcontext ctx, const ProfilerOptions &options) {
  State &s = *state_;
  PhaseTimer total(s.seconds, "begin_total");
  try {
    s.ctx = ctx;
    s.options = options;
    s.userReplay = options.replay == Replay::User;
    if (s.options.rangesPerSession == 0)
      s.options.rangesPerSession = 64;
    // Reusable only for the same context and the same counter configuration (config image, image size).
    std::string mismatch = !ctx || ctx != kept->ctx                      ? "another context"
                           : !s.userReplay                               ? "not user replay"
                           : s.options.metrics != kept->options.metrics ? "other metrics"
                           : s.options.rangesPerSession != kept->options.rangesPerSession
                               ? "another number of ranges per session"
                               : "";
    s.takeSetUp(*kept);
    kept.reset();
    if (!mismatch.empty()) {
      s.teardown();
      return mismatch;
    }
    if (s.counterMetrics.empty() || !s.rangeProfiler || !s.host) {
      s.teardown();
      return "nothing kept to reuse";
    }

    PhaseTimer subscribing(s.seconds, "subscribe");
    if (options.ownSubscriber) {
      if (std::string why = s.subscribe(this); !why.empty()) {
        s.teardown();
        return why;
      }
    }
    subscribing.stop();

    std::string why;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      // The counter data image reset and the configuration set again (top of this file); passes as usual.
      why = s.configure();
      if (why.empty()) {
        total.stop();
        s.setUpReused = true;
        s.active = true;
        return "";
      }
      s.teardown();
    }
    s.unsubscribe();
    return why;
  } catch (const std::exception &e) {
    if (kept)
      kept->teardown();
    s.teardown();
    return std::string("internal error: ") + e.what();
  } catch (...) {
    if (kept)
      kept->teardown();
    s.teardown();
    return "internal error";
  }
}

std::string KernelProfiler::beginFresh(CUcontext ctx, const ProfilerOptions &options) {
  try {
    if (state_->active)
      return "this KernelProfiler is already active (call end() first)";
    state_ = std::make_unique<State>();
    State &s = *state_;
    PhaseTimer total(s.seconds, "begin_total"); // every return of begin()
    s.ctx = ctx;
    s.options = options;
    s.userReplay = options.replay == Replay::User;
    if (s.options.rangesPerSession == 0)
      s.options.rangesPerSession = 64;
    if (!ctx)
      return s.failBegin("no CUDA context");
    CUdevice device = 0;
    if (std::string why = s.readGpu(device); !why.empty())
      return s.failBegin(why);

    std::vector<std::string> requested = options.metrics.empty() ? allMetricNames() : options.metrics;
    std::vector<std::string> candidates;
    std::set<std::string> seen;
    for (const std::string &m : requested) {
      if (!seen.insert(m).second)
        continue;
      const MetricInfo *info = findMetric(m);
      if (!info)
        s.dropped[m] = "not in cudaperf's metric table (docs/counters.md)";
      else if (info->source == MetricSource::FunctionAttribute)
        s.wantRegisters = true;
      else if (info->source == MetricSource::OccupancyApi)
        s.wantOccupancy = true;
      else
        candidates.push_back(m);
    }
    if (!candidates.empty()) {
      if (std::string why = s.setUpCounters(device, candidates); !why.empty()) {
        s.teardown();
        return s.failBegin(why);
      }
    } else if (!s.wantRegisters && !s.wantOccupancy) {
      return s.failBegin("no metric of the table requested");
    }

    PhaseTimer subscribing(s.seconds, "subscribe");
    if (options.ownSubscriber) {
      if (std::string why = s.subscribe(this); !why.empty()) {
        s.teardown();
        return s.failBegin(why);
      }
    }
    subscribing.stop();

    std::string why;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      if (!s.counterMetrics.empty())
        why = s.startRangeProfiler();
      if (why.empty()) {
        // Before active: from then on launch callbacks on other threads may write s.seconds (under the lock).
        total.stop();
        s.active = true;
        bool dram = std::any_of(s.counterMetrics.begin(), s.counterMetrics.end(),
                                [](const std::string &m) { return m.rfind("dram__", 0) == 0; });
        if (dram && !s.userReplay)
          s.notes.push_back("DRAM counters under kernel replay: caches not controlled");
        return "";
      }
      s.teardown();
    }
    s.unsubscribe(); // outside the lock, as in end()
    return s.failBegin(why);
  } catch (const std::exception &e) {
    return state_->failBegin(std::string("internal error: ") + e.what());
  } catch (...) {
    return state_->failBegin("internal error");
  }
}

std::string KernelProfiler::end() {
  State &s = *state_;
  CUpti_SubscriberHandle subscriber = nullptr;
  Clock::time_point endStart = Clock::now();
  try {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.active)
      return s.beginFailure.empty() ? s.collectFailure : s.beginFailure;
    s.active = false;
    if (s.userReplay)
      s.collectUserReplay();
    else
      s.collect();
    s.notProfiled += s.pending.size();
    s.pending.clear();
    // keepSetUp (user replay): a session that succeeded leaves host, images and range profiler for the next
    // begin(); any failure tears everything down as always.
    if (s.options.keepSetUp && s.userReplay && !s.broken && s.collectFailure.empty() && !s.sessionRunning &&
        s.host && s.rangeProfiler)
      s.setUpKept = true;
    else
      s.teardown();
    subscriber = s.subscriber;
    s.subscriber = nullptr;
  } catch (const std::exception &e) {
    s.failCollect(std::string("internal error: ") + e.what());
  } catch (...) {
    s.failCollect("internal error");
  }
  // Outside the lock: a callback in flight on another thread may be waiting for it.
  if (subscriber) {
    PhaseTimer timer(s.seconds, "unsubscribe");
    cuptiUnsubscribe(subscriber);
    ownSubscriberHeld = false;
  }
  // Only an end() that ended an active session gets here (s.active is false now: no callback writes seconds).
  try {
    s.seconds["end_total"] += secondsSince(endStart);
  } catch (...) {
  }
  return s.collectFailure;
}

bool KernelProfiler::passNeeded() const {
  const State &s = *state_;
  if (!s.active || !s.userReplay || s.broken)
    return false;
  if (s.counterMetrics.empty())
    return s.passesRun == 0; // launch attributes only: one run of the workload
  return !s.allPassesSubmitted;
}

std::string KernelProfiler::beginPass() {
  State &s = *state_;
  try {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.active)
      return s.beginFailure.empty() ? (s.collectFailure.empty() ? "the profiler is not active" : s.collectFailure)
                                    : s.beginFailure;
    if (!s.userReplay)
      return "beginPass() is for Replay::User";
    if (s.broken)
      return s.collectFailure;
    if (s.sessionRunning)
      return "a pass is already running (call endPass() first)";
    if (s.counterMetrics.empty())
      return "";
    if (s.allPassesSubmitted)
      return "CUPTI has all the passes it needs";
    if (s.passesRun >= s.options.maxPasses) {
      s.failCollect("user replay needed more than " + std::to_string(s.options.maxPasses) + " passes (" +
                    std::to_string(s.passes) + " by the host configuration)");
      return s.collectFailure;
    }
    Clock::time_point passStart = Clock::now();
    if (std::string why = s.startSession(); !why.empty()) {
      s.failCollect(why);
      return why;
    }
    if (s.passesRun == 0)
      s.firstPassStart = passStart;
    s.passLaunches = 0;
    return "";
  } catch (const std::exception &e) {
    s.failCollect(std::string("internal error: ") + e.what());
  } catch (...) {
    s.failCollect("internal error");
  }
  return s.collectFailure;
}

std::string KernelProfiler::endPass() {
  State &s = *state_;
  try {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.active || !s.userReplay)
      return "endPass() without an active Replay::User profiler";
    if (s.broken)
      return s.collectFailure;
    if (s.counterMetrics.empty()) {
      ++s.passesRun;
      return "";
    }
    if (!s.sessionRunning)
      return "no pass is running (call beginPass() first)";
    s.sessionRunning = false;
    auto stop = makeParams<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    stop.pRangeProfilerObject = s.rangeProfiler;
    PhaseTimer stopping(s.seconds, "pass_stop");
    CUptiResult r = cuptiRangeProfilerStop(&stop);
    stopping.stop();
    if (r != CUPTI_SUCCESS) {
      s.failCollect(describe("cuptiRangeProfilerStop", r));
      return s.collectFailure;
    }
    if (s.passesRun > 0 && s.passLaunches != s.passZeroNames.size() && !s.passMismatchNoted) {
      s.passMismatchNoted = true;
      s.notes.push_back("user replay pass " + std::to_string(s.passesRun) + " launched " +
                        std::to_string(s.passLaunches) + " kernels, pass 0 " + std::to_string(s.passZeroNames.size()) +
                        ": the workload differs between passes, so counters of different passes do not belong to "
                        "the same launches");
    }
    ++s.passesRun;
    s.allPassesSubmitted = stop.isAllPassSubmitted != 0;
    // From the first pass's start to this pass's end: CUPTI's start/stop and the caller's workload and
    // preparation between passes.
    s.seconds["passes"] = secondsSince(s.firstPassStart);
    return "";
  } catch (const std::exception &e) {
    s.failCollect(std::string("internal error: ") + e.what());
  } catch (...) {
    s.failCollect("internal error");
  }
  return s.collectFailure;
}

size_t KernelProfiler::passesRun() const { return state_->passesRun; }

size_t KernelProfiler::launchesSeen() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return size_t(state_->launchesSeen);
}

bool KernelProfiler::launchesAccountedFor() const {
  State &s = *state_;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.active || !s.beginFailure.empty() || !s.collectFailure.empty() || s.broken)
    return false;
  if (s.notProfiled != 0 || s.rangesMismatched || s.passMismatchNoted || !s.pending.empty())
    return false;
  if (s.counterMetrics.empty()) // launch attributes only: no ranges, every launch a result
    return s.results.size() == size_t(s.launchesSeen);
  return s.rangesDecoded == size_t(s.launchesSeen) && s.results.size() == size_t(s.launchesSeen);
}

void KernelProfiler::release() {
  State &s = *state_;
  try {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.active || !s.setUpKept)
      return;
    s.setUpKept = false;
    s.teardown();
  } catch (...) {
  }
}

bool KernelProfiler::setUpKept() const { return state_->setUpKept; }
bool KernelProfiler::setUpReused() const { return state_->setUpReused; }

void KernelProfiler::onDriverApiCallback(CUpti_CallbackId cbid, const CUpti_CallbackData *data) {
  if (!data || !state_ || !isLaunchCallback(cbid))
    return;
  State &s = *state_;
  try {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.active || data->context != s.ctx)
      return;
    if (data->callbackSite == CUPTI_API_ENTER)
      s.onLaunchEnter(cbid, *data);
    else
      s.onLaunchExit(*data);
  } catch (...) {
    // Never let an exception unwind into the driver.
  }
}

bool KernelProfiler::active() const { return state_->active; }
const std::vector<KernelCounters> &KernelProfiler::kernels() const { return state_->results; }
std::vector<std::string> KernelProfiler::droppedMetrics() const {
  std::vector<std::string> names;
  for (const auto &entry : state_->dropped)
    names.push_back(entry.first);
  return names;
}
const std::map<std::string, std::string> &KernelProfiler::droppedMetricReasons() const { return state_->dropped; }
const std::vector<std::string> &KernelProfiler::collectedMetrics() const { return state_->counterMetrics; }
size_t KernelProfiler::kernelsNotProfiled() const { return state_->notProfiled; }
size_t KernelProfiler::replayPasses() const { return state_->passes; }
const std::vector<std::string> &KernelProfiler::notes() const { return state_->notes; }
const std::map<std::string, double> &KernelProfiler::phaseSeconds() const { return state_->seconds; }
std::string KernelProfiler::gpuName() const { return state_->gpuName; }
std::string KernelProfiler::computeCapability() const { return state_->computeCapability; }

CountersDocument KernelProfiler::document(const std::string &program) const {
  const State &s = *state_;
  CountersDocument doc;
  doc.program = program;
  doc.gpuName = s.gpuName;
  doc.computeCapability = s.computeCapability;
  doc.droppedMetrics = s.dropped;
  doc.kernels = s.results;
  doc.kernelsNotProfiled = s.notProfiled;
  doc.maxKernels = s.options.maxKernels;
  doc.replayPasses = s.passes;
  doc.notes = s.notes;
  doc.profilerSeconds = s.seconds;
  if (!s.beginFailure.empty()) {
    doc.available = false;
    doc.reason = s.beginFailure;
  } else if (!s.collectFailure.empty() && s.results.empty()) {
    doc.available = false;
    doc.reason = s.collectFailure;
  } else {
    doc.available = true;
  }
  return doc;
}

} // namespace cudaperf::counters
