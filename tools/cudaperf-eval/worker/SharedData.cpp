#include "SharedData.h"
#include "AllocationInterpose.h"
#include "DeviceInfo.h"
#include "SetData.h"

#include "cudaperf/Runtime/Build.h"

namespace cudaperf::worker {

using runtime::DeviceBuffer;

const void *SharedSet::input(size_t arg) const {
  const DeviceBuffer *b = meta ? meta->find(arg, DeviceBuffer::Role::Input) : nullptr;
  return b ? slab + b->offset : nullptr;
}

const void *SharedSet::expected(size_t arg) const {
  const DeviceBuffer *b = meta ? meta->find(arg, DeviceBuffer::Role::Expected) : nullptr;
  return b ? slab + b->offset : nullptr;
}

SharedData::~SharedData() {
  WorkerAllocations own;
  for (size_t c = 0; c < slabs_.size(); ++c)
    for (size_t s = 0; s < slabs_[c].size(); ++s)
      if (slabs_[c][s])
        owned_[c][s] ? cudaFree(slabs_[c][s]) : cudaIpcCloseMemHandle(slabs_[c][s]);
}

std::string SharedData::open(const std::string &manifestPath, const runtime::Task &task, cudaStream_t stream) {
  std::string text;
  if (!runtime::readFile(manifestPath, text))
    return manifestPath + ": cannot be read";
  try {
    data_ = runtime::deviceDataFromJson(nlohmann::ordered_json::parse(text));
  } catch (const std::exception &e) {
    return manifestPath + ": " + e.what();
  }
  WorkerAllocations own;
  Staging staging;
  for (runtime::DeviceConfigData &c : data_.configs) {
    slabs_.emplace_back();
    owned_.emplace_back();
    for (runtime::DeviceSet &s : c.sets) {
      cudaIpcMemHandle_t h;
      if (!ipcHandleFromHex(s.ipcHandle, h))
        return manifestPath + ": config " + c.name + ": not an IPC handle";
      void *p = nullptr;
      cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
      if (e == cudaSuccess) {
        slabs_.back().push_back(p);
        owned_.back().push_back(false);
        continue;
      }
      cudaGetLastError();
      ipcError_ = cudaErrorText(e);
      std::string why = "mapping the task data of config " + c.name + " (" + ipcError_ + ")";
      if (s.expectedFile.empty())
        return why + "; no set-cache file to copy it from";
      if ((e = mallocWaiting(&p, s.slabBytes, 30)))
        return why + "; allocating a copy: " + cudaErrorText(e);
      slabs_.back().push_back(p);
      owned_.back().push_back(true);
      double ms = s.referenceMs;
      if ((e = staging.init()) || (e = generateInputs(task, s, p, stream)) ||
          !readExpectedFile(s.expectedFile, s, p, stream, staging))
        return why + "; copying it from " + s.expectedFile + " failed";
      s.referenceMs = ms; // verify() then compares the copy with the holder's checksums
      ++copied_;
    }
  }
  return "";
}

SharedSet SharedData::set(const std::string &config, size_t set) const {
  SharedSet s;
  for (size_t c = 0; c < data_.configs.size(); ++c)
    if (data_.configs[c].name == config && set < data_.configs[c].sets.size()) {
      s.meta = &data_.configs[c].sets[set];
      s.slab = static_cast<const unsigned char *>(slabs_[c][set]);
    }
  return s;
}

std::string SharedData::verify(devicekernels::DeviceScratch &scratch, cudaError_t &err) const {
  err = cudaSuccess;
  for (size_t c = 0; c < data_.configs.size(); ++c)
    for (size_t s = 0; s < data_.configs[c].sets.size(); ++s)
      for (const DeviceBuffer &b : data_.configs[c].sets[s].buffers) {
        uint64_t sum = 0;
        if ((err = devicekernels::checksumBytes(scratch, static_cast<const unsigned char *>(slabs_[c][s]) + b.offset,
                                                b.bytes, sum)))
          return "";
        if (sum != b.checksum)
          return "the evaluator's " + std::string(b.role == DeviceBuffer::Role::Input ? "input" : "expected") +
                 " data of argument " + std::to_string(b.arg) + " (config " + data_.configs[c].name + ", set " +
                 std::to_string(s) + ") changed";
      }
  return "";
}

} // namespace cudaperf::worker
