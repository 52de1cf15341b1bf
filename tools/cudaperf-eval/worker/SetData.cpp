#include "SetData.h"

#include "cudaperf/DeviceKernels/DeviceKernels.h"
#include "cudaperf/Runtime/CounterRng.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace cudaperf::worker {

using runtime::DeviceBuffer;

namespace {

constexpr uint64_t kExpectedMagic = 0x33505845'50524543ull; // "CERPEXP3"

uint64_t expectedCount(const runtime::DeviceSet &set) {
  return uint64_t(std::count_if(set.buffers.begin(), set.buffers.end(),
                                [](const DeviceBuffer &b) { return b.role == DeviceBuffer::Role::Expected; }));
}

bool toFile(FILE *f, const unsigned char *src, uint64_t bytes, cudaStream_t stream, Staging &staging) {
  for (uint64_t done = 0; done < bytes;) {
    size_t n = size_t(std::min<uint64_t>(Staging::kBytes, bytes - done));
    if (cudaMemcpyAsync(staging.host(), src + done, n, cudaMemcpyDeviceToHost, stream) ||
        cudaStreamSynchronize(stream) || fwrite(staging.host(), 1, n, f) != n)
      return false;
    done += n;
  }
  return true;
}

bool fromFile(FILE *f, unsigned char *dst, uint64_t bytes, cudaStream_t stream, Staging &staging) {
  for (uint64_t done = 0; done < bytes;) {
    size_t n = size_t(std::min<uint64_t>(Staging::kBytes, bytes - done));
    // The staging buffer is free again once the previous copy is done.
    if (cudaStreamSynchronize(stream) || fread(staging.host(), 1, n, f) != n ||
        cudaMemcpyAsync(dst + done, staging.host(), n, cudaMemcpyHostToDevice, stream))
      return false;
    done += n;
  }
  return cudaStreamSynchronize(stream) == cudaSuccess;
}

} // namespace

Staging::~Staging() {
  if (host_)
    cudaFreeHost(host_);
}

cudaError_t Staging::init() { return host_ ? cudaSuccess : cudaMallocHost(&host_, kBytes); }

cudaError_t generateInputs(const runtime::Task &task, const runtime::DeviceSet &set, void *slab, cudaStream_t stream) {
  for (const DeviceBuffer &b : set.buffers) {
    if (b.role != DeviceBuffer::Role::Input)
      continue;
    runtime::ElementStream es = runtime::elementStream(task.args[b.arg], b.arg, set.seed);
    devicekernels::FillSpec spec{int(es.dtype), int(es.kind), es.a, es.b, es.key};
    if (cudaError_t e = devicekernels::fillElements(static_cast<unsigned char *>(slab) + b.offset,
                                                    b.bytes / runtime::dtypeSize(es.dtype), spec, stream))
      return e;
  }
  return cudaSuccess;
}

bool readExpectedFile(const std::string &path, runtime::DeviceSet &set, void *slab, cudaStream_t stream,
                      Staging &staging) {
  FILE *f = fopen(path.c_str(), "rb");
  if (!f)
    return false;
  uint64_t head[4] = {};
  bool ok = fread(head, sizeof head, 1, f) == 1 && head[0] == kExpectedMagic && head[1] == set.seed &&
            head[3] == expectedCount(set);
  for (const DeviceBuffer &b : set.buffers) {
    if (!ok || b.role != DeviceBuffer::Role::Expected)
      continue;
    uint64_t arg = 0, bytes = 0;
    ok = fread(&arg, 8, 1, f) == 1 && fread(&bytes, 8, 1, f) == 1 && arg == b.arg && bytes == b.bytes &&
         fromFile(f, static_cast<unsigned char *>(slab) + b.offset, b.bytes, stream, staging);
  }
  fclose(f);
  if (ok)
    std::memcpy(&set.referenceMs, &head[2], sizeof set.referenceMs);
  return ok;
}

bool writeExpectedFile(const std::string &path, const runtime::DeviceSet &set, const void *slab, cudaStream_t stream,
                       Staging &staging) {
  std::string tmp = path + ".tmp" + std::to_string(getpid());
  FILE *f = fopen(tmp.c_str(), "wb");
  if (!f)
    return false;
  uint64_t head[4] = {kExpectedMagic, set.seed, 0, expectedCount(set)};
  std::memcpy(&head[2], &set.referenceMs, sizeof set.referenceMs);
  bool ok = fwrite(head, sizeof head, 1, f) == 1;
  for (const DeviceBuffer &b : set.buffers) {
    if (!ok || b.role != DeviceBuffer::Role::Expected)
      continue;
    uint64_t arg = b.arg, bytes = b.bytes;
    ok = fwrite(&arg, 8, 1, f) == 1 && fwrite(&bytes, 8, 1, f) == 1 &&
         toFile(f, static_cast<const unsigned char *>(slab) + b.offset, b.bytes, stream, staging);
  }
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

} // namespace cudaperf::worker
