// A task's input sets and expected outputs as a data holder keeps them on one GPU, for the
// workers that check candidates against them (docs/eval-result.md, "Data on the device"). One
// allocation ("slab") per configuration and input set holds the set's input buffers (what the
// entry reads, generated on the device) and expected buffers (what it must write, from the
// reference); workers map the slabs through CUDA IPC, copy inputs into their own argument
// buffers before each call, compare outputs with the expected buffers on the device, and verify
// the checksums after each candidate (a stray write may have hit the shared data). This header is
// the layout of a slab, and the manifest the holder publishes (its types from lib/Schema); no CUDA.
#pragma once

#include "cudaperf/Runtime/Task.h"
#include "cudaperf/Schema/DeviceDataManifest.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cudaperf::runtime {

// The manifest's types are lib/Schema's (schema::DeviceData, the one owner of the wire format).
using schema::DeviceBuffer;
using schema::DeviceConfigData;
using schema::DeviceData;
using schema::DeviceSet;
using schema::hexDecode;
using schema::hexEncode;
using schema::kDeviceDataSchema;
constexpr uint64_t kSlabAlignment = 256;

// The buffers of one set of `config`, each aligned to kSlabAlignment: an Input buffer for every
// pointer the entry reads (in, inout), an Expected buffer for every pointer it writes (out, inout).
DeviceSet layoutSet(const Task &task, const Config &config);

nlohmann::ordered_json deviceDataToJson(const DeviceData &data); // data.toJson()
// schema::DeviceData::fromJson; throws TaskError naming the field at fault.
DeviceData deviceDataFromJson(const nlohmann::ordered_json &doc);

} // namespace cudaperf::runtime
