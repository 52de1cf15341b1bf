#include "cudaperf/Schema/DeviceDataManifest.h"

#include "cudaperf/Support/JsonReader.h"

namespace cudaperf::schema {

using support::JsonField;

namespace {

// A whole number >= 0 up to 2^64 - 1 (seeds are full 64-bit).
uint64_t unsignedNumber(const JsonField &f) {
  const Json &v = f.json();
  if (v.is_number_unsigned())
    return v.get<uint64_t>();
  return uint64_t(f.integer(0));
}

DeviceBuffer readBuffer(const JsonField &f, uint64_t slabBytes) {
  DeviceBuffer b;
  b.arg = size_t(f.require("arg").integer(0, INT32_MAX));
  JsonField role = f.require("role");
  std::string r = role.string();
  if (r != "input" && r != "expected")
    role.expected("\"input\" or \"expected\"");
  b.role = r == "input" ? DeviceBuffer::Role::Input : DeviceBuffer::Role::Expected;
  b.offset = unsignedNumber(f.require("offset"));
  b.bytes = unsignedNumber(f.require("bytes"));
  if (b.offset > slabBytes || b.bytes > slabBytes - b.offset)
    f.fail("outside its slab of " + std::to_string(slabBytes) + " bytes (offset " + std::to_string(b.offset) +
           ", " + std::to_string(b.bytes) + " bytes)");
  JsonField checksum = f.require("checksum");
  if (!hexDecode(checksum.string(), &b.checksum, sizeof b.checksum))
    checksum.expected("16 hex digits");
  return b;
}

DeviceSet readSet(const JsonField &f) {
  DeviceSet s;
  s.seed = unsignedNumber(f.require("seed"));
  s.referenceMs = f.require("reference_ms").number();
  s.expectedFromCache = f.require("expected_from_cache").boolean();
  s.expectedFile = f.require("expected_file").string();
  s.ipcHandle = f.require("ipc_handle").string();
  s.slabBytes = unsignedNumber(f.require("slab_bytes"));
  for (const JsonField &b : f.require("buffers").elements())
    s.buffers.push_back(readBuffer(b, s.slabBytes));
  return s;
}

} // namespace

const DeviceBuffer *DeviceSet::find(size_t arg, DeviceBuffer::Role role) const {
  for (const DeviceBuffer &b : buffers)
    if (b.arg == arg && b.role == role)
      return &b;
  return nullptr;
}

uint64_t DeviceData::totalBytes() const {
  uint64_t t = 0;
  for (const DeviceConfigData &c : configs)
    for (const DeviceSet &s : c.sets)
      t += s.slabBytes;
  return t;
}

const DeviceConfigData *DeviceData::config(const std::string &name) const {
  for (const DeviceConfigData &c : configs)
    if (c.name == name)
      return &c;
  return nullptr;
}

DeviceData DeviceData::fromJson(const Json &doc, const std::string &document) {
  JsonField root(doc, document);
  JsonField schema = root.require("schema");
  if (schema.string() != kDeviceDataSchema)
    schema.expected(std::string("\"") + kDeviceDataSchema + "\"");
  DeviceData d;
  d.key = root.require("key").string();
  d.task = root.require("task").string();
  d.deviceUuid = root.require("device_uuid").string();
  d.seed = unsignedNumber(root.require("seed"));
  d.sets = int(root.require("sets").integer(0, INT32_MAX));
  for (const JsonField &c : root.require("configs").elements()) {
    DeviceConfigData config;
    config.name = c.require("name").string();
    for (const JsonField &s : c.require("sets").elements())
      config.sets.push_back(readSet(s));
    d.configs.push_back(std::move(config));
  }
  return d;
}

Json DeviceData::toJson() const {
  Json doc = Json::object();
  doc["schema"] = kDeviceDataSchema;
  doc["key"] = key;
  doc["task"] = task;
  doc["device_uuid"] = deviceUuid;
  doc["seed"] = seed;
  doc["sets"] = sets;
  doc["total_bytes"] = totalBytes();
  Json cs = Json::array();
  for (const DeviceConfigData &c : configs) {
    Json ss = Json::array();
    for (const DeviceSet &s : c.sets) {
      Json buffers = Json::array();
      for (const DeviceBuffer &b : s.buffers)
        buffers.push_back({{"arg", b.arg},
                           {"role", b.role == DeviceBuffer::Role::Input ? "input" : "expected"},
                           {"offset", b.offset},
                           {"bytes", b.bytes},
                           {"checksum", hexEncode(&b.checksum, sizeof b.checksum)}});
      ss.push_back({{"seed", s.seed},
                    {"reference_ms", s.referenceMs},
                    {"expected_from_cache", s.expectedFromCache},
                    {"expected_file", s.expectedFile},
                    {"ipc_handle", s.ipcHandle},
                    {"slab_bytes", s.slabBytes},
                    {"buffers", std::move(buffers)}});
    }
    cs.push_back({{"name", c.name}, {"sets", std::move(ss)}});
  }
  doc["configs"] = std::move(cs);
  return doc;
}

std::string hexEncode(const void *data, size_t bytes) {
  static const char *digits = "0123456789abcdef";
  const auto *p = static_cast<const unsigned char *>(data);
  std::string out;
  out.reserve(bytes * 2);
  for (size_t i = 0; i < bytes; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

bool hexDecode(const std::string &hex, void *data, size_t bytes) {
  if (hex.size() != bytes * 2)
    return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  auto *p = static_cast<unsigned char *>(data);
  for (size_t i = 0; i < bytes; ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    p[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

} // namespace cudaperf::schema
