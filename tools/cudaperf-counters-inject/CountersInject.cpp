// CUDA injection library: profiles every kernel launch of an unmodified CUDA program with the CUPTI range
// profiler and writes one cudaperf-counters/1 document (docs/counters.md).
//
//   CUDA_INJECTION64_PATH=/path/libcudaperf-counters-inject.so  [CUDAPERF_COUNTERS_OUT=out.json]
//   [CUDAPERF_COUNTERS_MAX_KERNELS=256] [CUDAPERF_COUNTERS_METRICS=a,b,...]  ./program
//
// The driver calls InitializeInjection() during cuInit, where no CUDA call is allowed; profiling of a context
// starts at its first kernel launch (entry callback). The document is rewritten whenever a context is
// destroyed and at exit, so a program that ends with exit() or returns from main keeps its numbers; one that
// is killed or calls _exit() keeps what the last context destruction wrote.
#include "cudaperf/Counters/KernelProfiler.h"

#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

using namespace cudaperf::counters;

namespace {

struct ContextProfile {
  CUcontext ctx = nullptr;
  KernelProfiler profiler;
  bool ended = false;
  bool capSpent = false; // created after the kernel cap was spent: its launches are only counted
};

// Allocated once and never freed: static destructors at exit must not touch CUPTI after the driver is gone.
struct Injection {
  std::mutex mutex;
  std::vector<std::unique_ptr<ContextProfile>> contexts; // in order of first launch
  std::string outPath = "cudaperf-counters.json";
  std::string program;
  std::vector<std::string> metrics;
  size_t maxKernels = 256;
  std::string subscribeFailure;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<std::string> notes;
  size_t launchesPastCap = 0; // launches in contexts created after the cap was spent
};
Injection *injection = nullptr;

void logLine(const std::string &line) { std::fprintf(stderr, "cudaperf-counters: %s\n", line.c_str()); }

std::string readCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out;
  for (char c : raw)
    out += c == '\0' ? ' ' : c;
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

std::vector<std::string> splitList(const char *text) {
  std::vector<std::string> items;
  std::string item;
  for (const char *p = text; ; ++p) {
    if (*p == ',' || *p == ';' || *p == ' ' || *p == '\0') {
      if (!item.empty())
        items.push_back(item);
      item.clear();
      if (*p == '\0')
        break;
    } else {
      item += *p;
    }
  }
  return items;
}

size_t profiledSoFar(const Injection &inj) {
  size_t n = 0;
  for (const auto &c : inj.contexts)
    n += c->profiler.kernels().size();
  return n;
}

// Caller holds injection->mutex.
CountersDocument mergedDocument(const Injection &inj) {
  CountersDocument doc;
  doc.program = inj.program;
  doc.maxKernels = inj.maxKernels;
  doc.notes = inj.notes;
  if (!inj.subscribeFailure.empty()) {
    doc.available = false;
    doc.reason = inj.subscribeFailure;
    return doc;
  }
  if (inj.contexts.empty()) {
    doc.available = true;
    doc.notes.push_back("no kernel launch was seen");
    return doc;
  }
  bool anyAvailable = false;
  std::string firstReason;
  doc.kernelsNotProfiled = inj.launchesPastCap;
  for (size_t i = 0; i < inj.contexts.size(); ++i) {
    if (inj.contexts[i]->capSpent)
      continue;
    CountersDocument part = inj.contexts[i]->profiler.document(inj.program);
    std::string prefix = inj.contexts.size() > 1 ? "context " + std::to_string(i) + ": " : "";
    if (doc.gpuName.empty()) {
      doc.gpuName = part.gpuName;
      doc.computeCapability = part.computeCapability;
    }
    if (part.available)
      anyAvailable = true;
    else if (firstReason.empty())
      firstReason = prefix + part.reason;
    for (const auto &[metric, why] : part.droppedMetrics)
      doc.droppedMetrics.emplace(metric, why);
    for (KernelCounters &k : part.kernels)
      doc.kernels.push_back(std::move(k));
    doc.kernelsNotProfiled += part.kernelsNotProfiled;
    doc.replayPasses = std::max(doc.replayPasses, part.replayPasses);
    for (const std::string &n : part.notes)
      doc.notes.push_back(prefix + n);
  }
  if (inj.contexts.size() > 1)
    doc.notes.push_back(std::to_string(inj.contexts.size()) +
                        " contexts: kernels are listed context by context; launch indices restart per context");
  doc.available = anyAvailable || firstReason.empty();
  if (!doc.available)
    doc.reason = firstReason;
  return doc;
}

// Caller holds injection->mutex. Written to a temporary file and renamed, so a reader never sees half a file.
void writeDocument(const Injection &inj) {
  std::string text;
  try {
    text = writeCountersJson(mergedDocument(inj));
  } catch (const std::exception &e) {
    logLine(std::string("could not build the document: ") + e.what());
    return;
  }
  std::string tmp = inj.outPath + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "w");
  if (!f) {
    logLine("cannot write " + tmp);
    return;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), inj.outPath.c_str()) != 0)
    logLine("cannot write " + inj.outPath);
}

void endContext(ContextProfile &c) {
  if (c.ended)
    return;
  c.ended = true;
  c.profiler.end();
}

ContextProfile *profileFor(Injection &inj, CUcontext ctx, bool create) {
  for (auto &c : inj.contexts)
    if (c->ctx == ctx)
      return c->ended ? nullptr : c.get();
  if (!create || !ctx)
    return nullptr;
  auto c = std::make_unique<ContextProfile>();
  c->ctx = ctx;
  ProfilerOptions options;
  options.metrics = inj.metrics;
  options.ownSubscriber = false;
  if (inj.maxKernels) {
    size_t used = profiledSoFar(inj);
    if (used >= inj.maxKernels) {
      c->capSpent = true;
      inj.notes.push_back("kernel cap reached before a context started: its launches are not profiled");
    }
    options.maxKernels = c->capSpent ? 0 : inj.maxKernels - used;
  }
  if (!c->capSpent) {
    std::string why = c->profiler.begin(ctx, options);
    if (!why.empty())
      logLine("profiling unavailable: " + why);
  }
  inj.contexts.push_back(std::move(c));
  return inj.contexts.back().get();
}

void CUPTIAPI onCallback(void *, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *cbdata) {
  if (!injection || !cbdata)
    return;
  try {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      const auto *data = static_cast<const CUpti_CallbackData *>(cbdata);
      KernelProfiler *profiler = nullptr;
      {
        std::lock_guard<std::mutex> lock(injection->mutex);
        ContextProfile *c = profileFor(*injection, data->context, data->callbackSite == CUPTI_API_ENTER);
        if (c && c->capSpent) {
          if (data->callbackSite == CUPTI_API_ENTER)
            ++injection->launchesPastCap;
        } else if (c) {
          profiler = &c->profiler;
        }
      }
      // Outside the injection lock: the profiler has its own, and a flush can take a while.
      if (profiler)
        profiler->onDriverApiCallback(cbid, data);
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      const auto *data = static_cast<const CUpti_ResourceData *>(cbdata);
      std::lock_guard<std::mutex> lock(injection->mutex);
      if (ContextProfile *c = profileFor(*injection, data->context, false)) {
        endContext(*c);
        writeDocument(*injection);
      }
    }
  } catch (...) {
    // Never unwind into the driver.
  }
}

void onExit() {
  if (!injection)
    return;
  try {
    std::lock_guard<std::mutex> lock(injection->mutex);
    for (auto &c : injection->contexts)
      endContext(*c);
    writeDocument(*injection);
    if (injection->subscriber) {
      cuptiUnsubscribe(injection->subscriber);
      injection->subscriber = nullptr;
    }
  } catch (...) {
  }
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::once_flag once;
  std::call_once(once, [] {
    try {
      injection = new Injection();
      if (const char *out = std::getenv("CUDAPERF_COUNTERS_OUT"); out && *out)
        injection->outPath = out;
      if (const char *max = std::getenv("CUDAPERF_COUNTERS_MAX_KERNELS"); max && *max) {
        char *end = nullptr;
        unsigned long long v = std::strtoull(max, &end, 10);
        if (end && *end == '\0')
          injection->maxKernels = size_t(v);
        else
          injection->notes.push_back(std::string("CUDAPERF_COUNTERS_MAX_KERNELS='") + max + "' ignored (not a number)");
      }
      if (const char *metrics = std::getenv("CUDAPERF_COUNTERS_METRICS"); metrics && *metrics)
        injection->metrics = splitList(metrics);
      injection->program = readCommandLine();

      char oldName[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
      CUpti_SubscriberParams params = {};
      params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
      params.subscriberName = "cudaperf-counters-inject";
      params.oldSubscriberName = oldName;
      params.oldSubscriberSize = sizeof oldName - 1;
      CUptiResult r = cuptiSubscribe_v2(&injection->subscriber, onCallback, nullptr, &params);
      if (r != CUPTI_SUCCESS) {
        const char *text = nullptr;
        cuptiGetResultString(r, &text);
        injection->subscribeFailure = std::string("cuptiSubscribe_v2 returned ") + (text ? text : "an error") +
                                      (oldName[0] ? std::string(" (held by ") + oldName + ")" : std::string());
        injection->subscriber = nullptr;
        logLine("profiling unavailable: " + injection->subscribeFailure);
      } else {
        for (CUpti_CallbackId id : KernelProfiler::launchCallbackIds())
          cuptiEnableCallback(1, injection->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
        cuptiEnableCallback(1, injection->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
      }
      std::atexit(onExit);
    } catch (...) {
    }
  });
  return 1;
}
