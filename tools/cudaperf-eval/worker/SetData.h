// Filling one input set's device allocation (runtime::DeviceSet): its inputs from the
// counter-based generator, its expected outputs from or to a set-cache file (magic, seed,
// reference ms, then (argument, bytes, data) per expected buffer), streamed through a pinned
// staging buffer so host memory stays bounded whatever the set's size. Shared by the data holder
// and by a worker that cannot map the holder's data (CUDA IPC refused) and makes its own copy.
#pragma once

#include "cudaperf/Runtime/DeviceData.h"
#include "cudaperf/Runtime/Task.h"

#include <cuda_runtime_api.h>
#include <string>

namespace cudaperf::worker {

class Staging {
public:
  static constexpr size_t kBytes = size_t(64) << 20;
  ~Staging();
  cudaError_t init();
  void *host() const { return host_; }

private:
  void *host_ = nullptr;
};

// The set's input buffers, generated on `stream` (asynchronous).
cudaError_t generateInputs(const runtime::Task &task, const runtime::DeviceSet &set, void *slab, cudaStream_t stream);

// False (and the expected buffers undefined) unless the file holds exactly this set's expected
// outputs; sets set.referenceMs.
bool readExpectedFile(const std::string &path, runtime::DeviceSet &set, void *slab, cudaStream_t stream,
                      Staging &staging);
// Written atomically (a temporary file renamed); false if it could not be.
bool writeExpectedFile(const std::string &path, const runtime::DeviceSet &set, const void *slab, cudaStream_t stream,
                       Staging &staging);

} // namespace cudaperf::worker
