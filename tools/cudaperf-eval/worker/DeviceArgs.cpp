#include "DeviceArgs.h"
#include "AllocationInterpose.h"
#include "DeviceInfo.h"

#include "cudaperf/Runtime/CounterRng.h"

namespace cudaperf::worker {

using runtime::Argument;
namespace dk = cudaperf::devicekernels;

DeviceArgs::DeviceArgs(const runtime::Task &task, const runtime::Config &config) : task_(task), config_(config) {
  std::vector<int64_t> counts = task.counts(config);
  for (size_t i = 0; i < task.args.size(); ++i)
    bytes_.push_back(task.args[i].isPointer() ? counts[i] * int64_t(runtime::dtypeSize(task.args[i].dtype)) : 0);
  base_.assign(task.args.size(), nullptr);
  data_.assign(task.args.size(), nullptr);
}

DeviceArgs::~DeviceArgs() {
  WorkerAllocations own;
  for (void *p : base_)
    if (p)
      cudaFree(p);
}

cudaError_t DeviceArgs::allocate(double memoryWaitSeconds, double *waited) {
  WorkerAllocations own;
  for (size_t i = 0; i < task_.args.size(); ++i) {
    if (!task_.args[i].isPointer())
      continue;
    if (cudaError_t e = mallocWaiting(&base_[i], allocationBytes(i), memoryWaitSeconds, waited))
      return e;
    data_[i] = static_cast<unsigned char *>(base_[i]) + kGuardBytes;
  }
  return cudaSuccess;
}

runtime::PackedArgs DeviceArgs::packed() const {
  runtime::HostArgs scalars;
  scalars.buffers.resize(task_.args.size());
  for (const Argument &a : task_.args)
    scalars.scalars.push_back(a.isPointer() ? 0 : task_.scalarValue(a, config_));
  return runtime::packArgs(task_, scalars, &data_);
}

cudaError_t DeviceArgs::resetGuards(size_t i, cudaStream_t stream) {
  unsigned char *data = static_cast<unsigned char *>(data_[i]);
  size_t after = paddedBytes(i) - size_t(bytes_[i]) + kGuardBytes;
  if (cudaError_t e = cudaMemsetAsync(base_[i], kGuardByte, kGuardBytes, stream))
    return e;
  return cudaMemsetAsync(data + bytes_[i], kGuardByte, after, stream);
}

cudaError_t DeviceArgs::poison(size_t i, cudaStream_t stream) {
  return cudaMemsetAsync(data_[i], runtime::dtypeIsFloat(task_.args[i].dtype) ? 0xFF : 0xA5, size_t(bytes_[i]), stream);
}

cudaError_t DeviceArgs::prepare(const SharedSet &set, cudaStream_t stream) {
  for (size_t i = 0; i < task_.args.size(); ++i) {
    const Argument &a = task_.args[i];
    if (!a.isPointer())
      continue;
    if (cudaError_t e = resetGuards(i, stream))
      return e;
    cudaError_t e;
    if (a.access == Argument::Access::Out) {
      e = poison(i, stream);
    } else {
      const void *src = set.input(i);
      e = src ? cudaMemcpyAsync(data_[i], src, size_t(bytes_[i]), cudaMemcpyDeviceToDevice, stream) : cudaErrorInvalidValue;
    }
    if (e)
      return e;
  }
  return cudaStreamSynchronize(stream);
}

cudaError_t DeviceArgs::fill(uint64_t seed, cudaStream_t stream) {
  for (size_t i = 0; i < task_.args.size(); ++i) {
    const Argument &a = task_.args[i];
    if (!a.isPointer())
      continue;
    if (cudaError_t e = resetGuards(i, stream))
      return e;
    if (a.access == Argument::Access::Out) {
      if (cudaError_t e = poison(i, stream))
        return e;
      continue;
    }
    runtime::ElementStream es = runtime::elementStream(a, i, seed);
    // Fresh inputs are compared on the device only (with the oracle's, drawn by the same kernel).
    dk::FillSpec spec{int(es.dtype), int(es.kind), es.a, es.b, es.key, /*fast=*/true};
    if (cudaError_t e = dk::fillElements(data_[i], uint64_t(bytes_[i]) / runtime::dtypeSize(es.dtype), spec, stream))
      return e;
  }
  return cudaSuccess;
}

std::vector<schema::runner::BindArg> DeviceArgs::channelArgs(cudaError_t &err) const {
  using schema::runner::BindArg;
  err = cudaSuccess;
  runtime::PackedArgs p = packed();
  std::vector<BindArg> args;
  for (size_t i = 0; i < task_.args.size(); ++i) {
    BindArg a;
    if (task_.args[i].isPointer()) {
      cudaIpcMemHandle_t h;
      if ((err = cudaIpcGetMemHandle(&h, base_[i])))
        return args;
      a.kind = BindArg::Kind::Buffer;
      a.hex = ipcHandleHex(h);
      a.offset = kGuardBytes;
      a.bytes = uint64_t(bytes_[i]);
    } else {
      a.kind = BindArg::Kind::Scalar;
      a.hex = runtime::hexEncode(p.scalarStorage[i].data(), p.scalarStorage[i].size());
    }
    args.push_back(std::move(a));
  }
  return args;
}

std::string DeviceArgs::checkGuards(dk::DeviceScratch &scratch, cudaError_t &err) const {
  err = cudaSuccess;
  for (size_t i = 0; i < task_.args.size(); ++i) {
    if (!task_.args[i].isPointer())
      continue;
    const unsigned char *data = static_cast<const unsigned char *>(data_[i]);
    size_t afterBytes = paddedBytes(i) - size_t(bytes_[i]) + kGuardBytes;
    int64_t before = -1, after = -1;
    if ((err = dk::firstByteNotEqual(scratch, base_[i], kGuardBytes, kGuardByte, before)) ||
        (err = dk::firstByteNotEqual(scratch, data + bytes_[i], afterBytes, kGuardByte, after)))
      return "";
    if (before >= 0)
      return "wrote before the start of '" + task_.args[i].name + "' (byte offset -" +
             std::to_string(int64_t(kGuardBytes) - before) + ")";
    if (after >= 0)
      return "wrote past the end of '" + task_.args[i].name + "' (byte " + std::to_string(after) + " after its " +
             std::to_string(bytes_[i]) + " bytes)";
  }
  return "";
}

std::string DeviceArgs::checkInputsUnchanged(const SharedSet &set, dk::DeviceScratch &scratch, cudaError_t &err) const {
  err = cudaSuccess;
  for (size_t i = 0; i < task_.args.size(); ++i) {
    const Argument &a = task_.args[i];
    if (!a.isPointer() || a.access != Argument::Access::In)
      continue;
    int64_t at = -1;
    if ((err = dk::firstDifferentByte(scratch, data_[i], set.input(i), uint64_t(bytes_[i]), at)))
      return "";
    if (at >= 0)
      return "modified its input '" + a.name + "' (element " + std::to_string(at / int64_t(runtime::dtypeSize(a.dtype))) +
             ")";
  }
  return "";
}

runtime::Mismatch DeviceArgs::compareOutputs(const SharedSet &set, dk::DeviceScratch &scratch, cudaError_t &err) const {
  std::vector<const void *> expected(task_.args.size(), nullptr);
  for (size_t i = 0; i < task_.args.size(); ++i)
    if (task_.args[i].isOutput())
      expected[i] = set.expected(i);
  return compareAgainst(expected, 1.0, scratch, err);
}

runtime::Mismatch DeviceArgs::compareOutputsWith(const DeviceArgs &trusted, double toleranceScale,
                                                 dk::DeviceScratch &scratch, cudaError_t &err) const {
  std::vector<const void *> expected(trusted.data_.begin(), trusted.data_.end());
  return compareAgainst(expected, toleranceScale, scratch, err);
}

std::string DeviceArgs::checkInputsMatch(const DeviceArgs &trusted, dk::DeviceScratch &scratch, cudaError_t &err) const {
  err = cudaSuccess;
  for (size_t i = 0; i < task_.args.size(); ++i) {
    const Argument &a = task_.args[i];
    if (!a.isPointer() || a.access != Argument::Access::In)
      continue;
    int64_t at = -1;
    if ((err = dk::firstDifferentByte(scratch, data_[i], trusted.data_[i], uint64_t(bytes_[i]), at)))
      return "";
    if (at >= 0)
      return "modified its input '" + a.name + "' (element " + std::to_string(at / int64_t(runtime::dtypeSize(a.dtype))) +
             ")";
  }
  return "";
}

runtime::Mismatch DeviceArgs::compareAgainst(const std::vector<const void *> &expected, double toleranceScale,
                                             dk::DeviceScratch &scratch, cudaError_t &err) const {
  err = cudaSuccess;
  runtime::Mismatch m;
  double worstExcess = -1;
  for (size_t i = 0; i < task_.args.size(); ++i) {
    const Argument &a = task_.args[i];
    if (!a.isOutput())
      continue;
    runtime::Tolerance tol = task_.toleranceFor(a);
    dk::CompareSpec spec{int(a.dtype), tol.atol * toleranceScale, tol.rtol * toleranceScale};
    dk::CompareResult r;
    uint64_t count = uint64_t(bytes_[i]) / runtime::dtypeSize(a.dtype);
    if ((err = dk::compareElements(scratch, data_[i], expected[i], count, spec, r)))
      return m;
    m.badElements += int64_t(r.badElements);
    m.nanElements += int64_t(r.nanElements);
    // As runtime::compareOutputs: the first argument's worst unless a later one is strictly worse.
    if (r.worstIndex >= 0 && (m.pass || r.worstExcess > worstExcess)) {
      m.pass = false;
      worstExcess = r.worstExcess;
      m.argument = a.name;
      m.index = r.worstIndex;
      m.got = r.got;
      m.expected = r.expected;
    }
  }
  return m;
}

} // namespace cudaperf::worker
