// Device copies of one configuration's arguments, each surrounded by guard bytes so a write
// just past (or before) a buffer is caught even when it does not fault. Every check runs on the
// device against the holder's shared data (SharedData): inputs are copied device to device
// before each call, outputs poisoned (NaN / 0xA5), and after the call the guards, the inputs
// (unchanged?) and the outputs (against the expected values) are compared by the evaluator's
// kernels; only their verdicts come back to the host.
#pragma once

#include "SharedData.h"

#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "cudaperf/Runtime/Inputs.h"
#include "cudaperf/Runtime/IpcAllocation.h"
#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Schema/RunnerProtocol.h"

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

  // Buffers and guards (the worker's own memory), waiting up to memoryWaitSeconds while the
  // device is full; `waited` adds the seconds spent waiting.
  cudaError_t allocate(double memoryWaitSeconds, double *waited = nullptr);
  // Inputs and in/out arguments from the set; outputs poisoned; guards reset.
  cudaError_t prepare(const SharedSet &set, cudaStream_t stream);
  // Inputs and in/out arguments drawn afresh from the task's distributions with `seed` (a seed no
  // candidate has seen: nothing it kept from an earlier call applies); outputs poisoned; guards
  // reset. Asynchronous on `stream`.
  cudaError_t fill(uint64_t seed, cudaStream_t stream);
  // The outputs against another set of buffers holding the same inputs (a trusted
  // implementation's answer), with the task's tolerance times `toleranceScale`.
  runtime::Mismatch compareOutputsWith(const DeviceArgs &trusted, double toleranceScale,
                                       devicekernels::DeviceScratch &scratch, cudaError_t &err) const;
  // "" or the first input argument whose bytes differ from `trusted`'s.
  std::string checkInputsMatch(const DeviceArgs &trusted, devicekernels::DeviceScratch &scratch,
                               cudaError_t &err) const;
  // The arguments as the runner binds them (schema::runner::Bind): per argument the CUDA IPC
  // handle of its allocation, the offset to the data and its bytes, or a scalar's bytes.
  std::vector<schema::runner::BindArg> channelArgs(cudaError_t &err) const;
  // "" or which argument's guard was overwritten, and where.
  std::string checkGuards(devicekernels::DeviceScratch &scratch, cudaError_t &err) const;
  // "" or the first input argument whose bytes changed, with the element index.
  std::string checkInputsUnchanged(const SharedSet &set, devicekernels::DeviceScratch &scratch,
                                   cudaError_t &err) const;
  // The outputs against the set's expected values (runtime::compareOutputs' rule).
  runtime::Mismatch compareOutputs(const SharedSet &set, devicekernels::DeviceScratch &scratch,
                                   cudaError_t &err) const;

  const std::vector<void *> &pointers() const { return data_; }
  // The pointers and scalars in the shape the entry shim takes.
  runtime::PackedArgs packed() const;

private:
  const runtime::Task &task_;
  const runtime::Config &config_;
  std::vector<int64_t> bytes_;
  std::vector<void *> base_, data_;
  size_t paddedBytes(size_t i) const { return (size_t(bytes_[i]) + 255) / 256 * 256; }
  // What is allocated for argument i: its padded bytes between two guards, from 2 MiB up in whole
  // 2 MiB pages (the runner maps it through CUDA IPC: cudaperf/Runtime/IpcAllocation.h says why).
  size_t allocationBytes(size_t i) const { return runtime::ipcAllocationBytes(paddedBytes(i) + 2 * kGuardBytes); }
  cudaError_t resetGuards(size_t i, cudaStream_t stream);
  cudaError_t poison(size_t i, cudaStream_t stream);
  runtime::Mismatch compareAgainst(const std::vector<const void *> &expected, double toleranceScale,
                                   devicekernels::DeviceScratch &scratch, cudaError_t &err) const;
};

} // namespace cudaperf::worker
