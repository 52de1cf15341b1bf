// The manifest a data holder publishes for one task's data on one GPU, `cudaperf-device-data/1`
// (docs/eval-result.md, "Task data on the GPU"): where each configuration's input sets and expected
// outputs lie in their slabs, the slabs' CUDA IPC handles and the buffers' checksums. Written by
// the holder (cudaperf-eval-worker --holder), read by every worker and by
// cudaperf-torch-reference; runtime::DeviceData is this struct (lib/Runtime/DeviceData.h adds the
// slab layout).
//
// Every member is required, as the holder writes them all (expected_file may be empty); a reader
// refuses a buffer outside its slab, a role other than input/expected and a checksum that is not 16
// hex digits, with the field path: `configs[0].sets[1].buffers[2].checksum: expected 16 hex
// digits, got "xyz"`. total_bytes is derived (the sum of the slabs), written and not read back.
// The document is the holder's own, written whole each time: no unknown keys are kept.
#pragma once

#include "cudaperf/Support/Json.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::schema {

using support::Json;

inline constexpr const char *kDeviceDataSchema = "cudaperf-device-data/1";

struct DeviceBuffer {
  enum class Role { Input, Expected };
  size_t arg = 0; // index into the task's arguments
  Role role = Role::Input;
  uint64_t offset = 0, bytes = 0; // within the slab
  uint64_t checksum = 0;          // devicekernels::checksumBytes once published; 16 hex digits on the wire
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

  // Throws support::SupportError "DOCUMENT: PATH: WHAT".
  static DeviceData fromJson(const Json &doc, const std::string &document = "device data");
  Json toJson() const;
};

std::string hexEncode(const void *data, size_t bytes);
// False unless `hex` is exactly 2 * bytes hex digits.
bool hexDecode(const std::string &hex, void *data, size_t bytes);

} // namespace cudaperf::schema
