#include "DeviceArgs.h"

#include <cstring>

namespace cudaperf::worker {

using runtime::Argument;

DeviceArgs::DeviceArgs(const runtime::Task &task, const runtime::Config &config) : task_(task) {
  std::vector<int64_t> counts = task.counts(config);
  for (size_t i = 0; i < task.args.size(); ++i)
    bytes_.push_back(task.args[i].isPointer() ? counts[i] * int64_t(runtime::dtypeSize(task.args[i].dtype)) : 0);
  base_.assign(task.args.size(), nullptr);
  data_.assign(task.args.size(), nullptr);
}

DeviceArgs::~DeviceArgs() {
  for (void *p : base_)
    if (p)
      cudaFree(p);
}

size_t DeviceArgs::totalBytes() const {
  size_t t = 0;
  for (size_t i = 0; i < bytes_.size(); ++i)
    if (task_.args[i].isPointer())
      t += paddedBytes(i) + 2 * kGuardBytes;
  return t;
}

cudaError_t DeviceArgs::allocate() {
  for (size_t i = 0; i < task_.args.size(); ++i) {
    if (!task_.args[i].isPointer())
      continue;
    if (cudaError_t e = cudaMalloc(&base_[i], paddedBytes(i) + 2 * kGuardBytes))
      return e;
    data_[i] = static_cast<unsigned char *>(base_[i]) + kGuardBytes;
  }
  return cudaSuccess;
}

cudaError_t DeviceArgs::prepare(const runtime::HostArgs &host, cudaStream_t stream) {
  for (size_t i = 0; i < task_.args.size(); ++i) {
    const Argument &a = task_.args[i];
    if (!a.isPointer())
      continue;
    unsigned char *data = static_cast<unsigned char *>(data_[i]);
    size_t after = paddedBytes(i) - size_t(bytes_[i]) + kGuardBytes;
    if (cudaError_t e = cudaMemsetAsync(base_[i], kGuardByte, kGuardBytes, stream))
      return e;
    if (cudaError_t e = cudaMemsetAsync(data + bytes_[i], kGuardByte, after, stream))
      return e;
    cudaError_t e;
    if (a.access == Argument::Access::Out)
      e = cudaMemsetAsync(data, runtime::dtypeIsFloat(a.dtype) ? 0xFF : 0xA5, size_t(bytes_[i]), stream);
    else
      e = cudaMemcpyAsync(data, host.buffers[i].data(), size_t(bytes_[i]), cudaMemcpyHostToDevice, stream);
    if (e)
      return e;
  }
  return cudaStreamSynchronize(stream);
}

cudaError_t DeviceArgs::download(std::vector<std::vector<unsigned char>> &out) const {
  out.assign(task_.args.size(), {});
  for (size_t i = 0; i < task_.args.size(); ++i) {
    if (!task_.args[i].isOutput())
      continue;
    out[i].resize(size_t(bytes_[i]));
    if (cudaError_t e = cudaMemcpy(out[i].data(), data_[i], size_t(bytes_[i]), cudaMemcpyDeviceToHost))
      return e;
  }
  return cudaSuccess;
}

std::string DeviceArgs::checkGuards(cudaError_t &err) const {
  err = cudaSuccess;
  std::vector<unsigned char> before(kGuardBytes), after;
  for (size_t i = 0; i < task_.args.size(); ++i) {
    if (!task_.args[i].isPointer())
      continue;
    const unsigned char *data = static_cast<const unsigned char *>(data_[i]);
    size_t afterBytes = paddedBytes(i) - size_t(bytes_[i]) + kGuardBytes;
    after.resize(afterBytes);
    if ((err = cudaMemcpy(before.data(), base_[i], kGuardBytes, cudaMemcpyDeviceToHost)) ||
        (err = cudaMemcpy(after.data(), data + bytes_[i], afterBytes, cudaMemcpyDeviceToHost)))
      return "";
    for (size_t b = 0; b < kGuardBytes; ++b)
      if (before[b] != kGuardByte)
        return "wrote before the start of '" + task_.args[i].name + "' (byte offset -" +
               std::to_string(kGuardBytes - b) + ")";
    for (size_t b = 0; b < afterBytes; ++b)
      if (after[b] != kGuardByte)
        return "wrote past the end of '" + task_.args[i].name + "' (byte " + std::to_string(b) +
               " after its " + std::to_string(bytes_[i]) + " bytes)";
  }
  return "";
}

std::string DeviceArgs::checkInputsUnchanged(const runtime::HostArgs &host, cudaError_t &err) const {
  err = cudaSuccess;
  std::vector<unsigned char> now;
  for (size_t i = 0; i < task_.args.size(); ++i) {
    const Argument &a = task_.args[i];
    if (!a.isPointer() || a.access != Argument::Access::In)
      continue;
    now.resize(size_t(bytes_[i]));
    if ((err = cudaMemcpy(now.data(), data_[i], now.size(), cudaMemcpyDeviceToHost)))
      return "";
    if (std::memcmp(now.data(), host.buffers[i].data(), now.size()) != 0) {
      size_t elem = runtime::dtypeSize(a.dtype), k = 0;
      while (k < now.size() && now[k] == host.buffers[i][k])
        ++k;
      return "modified its input '" + a.name + "' (element " + std::to_string(k / elem) + ")";
    }
  }
  return "";
}

} // namespace cudaperf::worker
