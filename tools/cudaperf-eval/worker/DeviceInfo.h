// Small CUDA helpers shared by the worker and its data holder.
#pragma once

#include "cudaperf/Runtime/DeviceData.h"
#include "cudaperf/Support/Json.h"

#include <chrono>
#include <cstdio>
#include <cuda_runtime_api.h>
#include <string>
#include <thread>

namespace cudaperf::worker {

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi and NVML write it.
inline std::string uuidString(const cudaUUID_t &u) {
  const auto *b = reinterpret_cast<const unsigned char *>(u.bytes);
  char s[64];
  snprintf(s, sizeof s, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
           b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return s;
}

// A device's properties: the body of the worker's "device" events (schema::events::Device).
inline support::Json deviceJson(const cudaDeviceProp &prop) {
  int driver = 0, runtimeVersion = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtimeVersion);
  support::Json o = support::Json::object();
  o["name"] = prop.name;
  o["compute_capability"] = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  o["arch"] = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  o["multiprocessors"] = prop.multiProcessorCount;
  o["l2_bytes"] = prop.l2CacheSize;
  o["memory_bytes"] = uint64_t(prop.totalGlobalMem);
  o["driver_version"] = driver;
  o["runtime_version"] = runtimeVersion;
  o["uuid"] = uuidString(prop.uuid);
  return o;
}

inline std::string cudaErrorText(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

// cudaMalloc, retried while the device is out of memory for up to `waitSeconds`: another
// process (an evaluator's candidate that took everything, a trainer's peak) may hold it for a
// moment, and the evaluator's own allocations must not fail because of it. `waited` adds the
// seconds spent waiting.
inline cudaError_t mallocWaiting(void **p, size_t bytes, double waitSeconds, double *waited = nullptr) {
  auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::milliseconds(20);
  while (true) {
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaErrorMemoryAllocation)
      return e;
    cudaGetLastError();
    double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (spent >= waitSeconds)
      return e;
    std::this_thread::sleep_for(pause);
    if (waited)
      *waited += std::chrono::duration<double>(pause).count();
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
}

inline std::string ipcHandleHex(const cudaIpcMemHandle_t &h) { return runtime::hexEncode(&h, sizeof h); }
inline bool ipcHandleFromHex(const std::string &hex, cudaIpcMemHandle_t &h) {
  return runtime::hexDecode(hex, &h, sizeof h);
}

} // namespace cudaperf::worker
