// A task's input sets and expected outputs as a data holder keeps them on one GPU, for the
// workers that check candidates against them (docs/eval-result.md, "Data on the device"). One
// allocation ("slab") per configuration and input set holds the set's input buffers (what the
// entry reads, generated on the device) and expected buffers (what it must write, from the
// reference); workers map the slabs through CUDA IPC, copy inputs into their own argument
// buffers before each call, compare outputs with the expected buffers on the device, and verify
// the checksums after each candidate (a stray write may have hit the shared data). This header is
// the manifest the holder publishes, and the layout of a slab; no CUDA.
#pragma once

#include "cudaperf/Runtime/Task.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::runtime {

constexpr const char *kDeviceDataSchema = "cudaperf-device-data/1";
constexpr uint64_t kSlabAlignment = 256;

struct DeviceBuffer {
  enum class Role { Input, Expected };
  size_t arg = 0; // index into Task::args
  Role role = Role::Input;
  uint64_t offset = 0, bytes = 0; // within the slab
  uint64_t checksum = 0;          // devicekernels::checksumBytes once published
};

struct DeviceSet {
  uint64_t seed = 0;
  double referenceMs = 0;
  bool expectedFromCache = false; // read from the on-disk set cache instead of running the reference
  std::string expectedFile;       // the set-cache file with these expected outputs ("" if not on disk)
  std::string ipcHandle;          // cudaIpcMemHandle_t of the slab, hex
  uint64_t slabBytes = 0;
  std::vector<DeviceBuffer> buffers;

  const DeviceBuffer *find(size_t arg, DeviceBuffer::Role role) const;
};

struct DeviceConfigData {
  std::string name;
  std::vector<DeviceSet> sets;
};

struct DeviceData {
  std::string key; // what the holder was asked to prepare (task, reference, seeds, configurations)
  std::string task;
  std::string deviceUuid;
  uint64_t seed = 0;
  int sets = 0;
  std::vector<DeviceConfigData> configs;

  uint64_t totalBytes() const;
  const DeviceConfigData *config(const std::string &name) const;
};

// The buffers of one set of `config`, each aligned to kSlabAlignment: an Input buffer for every
// pointer the entry reads (in, inout), an Expected buffer for every pointer it writes (out, inout).
DeviceSet layoutSet(const Task &task, const Config &config);

nlohmann::ordered_json deviceDataToJson(const DeviceData &data);
// Throws TaskError naming the field at fault.
DeviceData deviceDataFromJson(const nlohmann::ordered_json &doc);

std::string hexEncode(const void *data, size_t bytes);
// False unless `hex` is exactly 2 * bytes hex digits.
bool hexDecode(const std::string &hex, void *data, size_t bytes);

} // namespace cudaperf::runtime
