// Device copies of one configuration's arguments, each surrounded by guard bytes so a write
// just past (or before) a buffer is caught even when it does not fault.
#pragma once

#include "cudaperf/Runtime/Inputs.h"
#include "cudaperf/Runtime/Task.h"

#include <cuda_runtime_api.h>
#include <string>
#include <vector>

namespace cudaperf::worker {

class DeviceArgs {
public:
  static constexpr size_t kGuardBytes = 4096;
  static constexpr unsigned char kGuardByte = 0xCD;

  DeviceArgs(const runtime::Task &task, const runtime::Config &config);
  ~DeviceArgs();
  DeviceArgs(const DeviceArgs &) = delete;
  DeviceArgs &operator=(const DeviceArgs &) = delete;

  cudaError_t allocate(); // buffers and guards
  // Inputs and in/out arguments from `host`; outputs poisoned (NaN / 0xA5), guards reset.
  cudaError_t prepare(const runtime::HostArgs &host, cudaStream_t stream);
  // Output arguments only; the others are left empty.
  cudaError_t download(std::vector<std::vector<unsigned char>> &out) const;
  // "" or which argument's guard was overwritten, and where.
  std::string checkGuards(cudaError_t &err) const;
  // "" or the first input argument whose bytes changed, with the element index.
  std::string checkInputsUnchanged(const runtime::HostArgs &host, cudaError_t &err) const;

  const std::vector<void *> &pointers() const { return data_; }
  size_t totalBytes() const;

private:
  const runtime::Task &task_;
  std::vector<int64_t> bytes_;
  std::vector<void *> base_, data_;
  size_t paddedBytes(size_t i) const { return (size_t(bytes_[i]) + 255) / 256 * 256; }
};

} // namespace cudaperf::worker
