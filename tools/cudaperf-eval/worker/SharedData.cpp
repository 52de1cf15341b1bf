#include "SharedData.h"
#include "DeviceInfo.h"

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
  for (auto &sets : slabs_)
    for (void *p : sets)
      if (p)
        cudaIpcCloseMemHandle(p);
}

std::string SharedData::open(const std::string &manifestPath) {
  std::string text;
  if (!runtime::readFile(manifestPath, text))
    return manifestPath + ": cannot be read";
  try {
    data_ = runtime::deviceDataFromJson(nlohmann::ordered_json::parse(text));
  } catch (const std::exception &e) {
    return manifestPath + ": " + e.what();
  }
  for (const runtime::DeviceConfigData &c : data_.configs) {
    slabs_.emplace_back();
    for (const runtime::DeviceSet &s : c.sets) {
      cudaIpcMemHandle_t h;
      if (!ipcHandleFromHex(s.ipcHandle, h))
        return manifestPath + ": config " + c.name + ": not an IPC handle";
      void *p = nullptr;
      if (cudaError_t e = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess)) {
        cudaGetLastError();
        return "mapping the task data of config " + c.name + " (" + cudaErrorText(e) + ")";
      }
      slabs_.back().push_back(p);
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
