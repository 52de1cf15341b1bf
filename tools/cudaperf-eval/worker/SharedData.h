// A worker's view of the task data its evaluator's holder keeps on the GPU (runtime::DeviceData):
// the slabs mapped through CUDA IPC, read-only by contract. verify() recomputes the published
// checksums, so a candidate that wrote into shared data (a stray pointer far outside its
// buffers) is caught before the next candidate is checked against damaged expectations.
#pragma once

#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "cudaperf/Runtime/DeviceData.h"

#include <string>
#include <vector>

namespace cudaperf::worker {

struct SharedSet {
  const runtime::DeviceSet *meta = nullptr;
  const unsigned char *slab = nullptr;
  const void *input(size_t arg) const;
  const void *expected(size_t arg) const;
};

class SharedData {
public:
  SharedData() = default;
  SharedData(const SharedData &) = delete;
  SharedData &operator=(const SharedData &) = delete;
  ~SharedData();

  // Reads the manifest and maps every slab; "" or why not. Where CUDA IPC refuses a mapping, the
  // worker makes its own copy instead: the inputs generated again, the expected outputs from the
  // set cache (when the holder wrote them there); `copied` counts those sets.
  std::string open(const std::string &manifestPath, const runtime::Task &task, cudaStream_t stream);
  int copied() const { return copied_; }
  const std::string &ipcError() const { return ipcError_; }
  const runtime::DeviceData &data() const { return data_; }
  // Set `set` of the configuration named `config` (null meta if there is none).
  SharedSet set(const std::string &config, size_t set) const;
  // "" when every buffer still has its checksum, else which one does not.
  std::string verify(devicekernels::DeviceScratch &scratch, cudaError_t &err) const;

private:
  runtime::DeviceData data_;
  std::vector<std::vector<void *>> slabs_; // [config][set]
  std::vector<std::vector<bool>> owned_;   // a copy of our own (cudaFree), not a mapping
  int copied_ = 0;
  std::string ipcError_;
};

} // namespace cudaperf::worker
