#include "cudaperf/Runtime/DeviceData.h"
#include "cudaperf/Runtime/Dtype.h"

#include <stdexcept>

namespace cudaperf::runtime {

using Json = nlohmann::ordered_json;

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

DeviceSet layoutSet(const Task &task, const Config &config) {
  DeviceSet set;
  std::vector<int64_t> counts = task.counts(config);
  uint64_t offset = 0;
  auto add = [&](size_t arg, DeviceBuffer::Role role) {
    DeviceBuffer b;
    b.arg = arg;
    b.role = role;
    b.offset = offset;
    b.bytes = uint64_t(counts[arg]) * dtypeSize(task.args[arg].dtype);
    offset += (b.bytes + kSlabAlignment - 1) / kSlabAlignment * kSlabAlignment;
    set.buffers.push_back(b);
  };
  for (size_t i = 0; i < task.args.size(); ++i)
    if (task.args[i].isPointer() && task.args[i].access != Argument::Access::Out)
      add(i, DeviceBuffer::Role::Input);
  for (size_t i = 0; i < task.args.size(); ++i)
    if (task.args[i].isOutput())
      add(i, DeviceBuffer::Role::Expected);
  set.slabBytes = offset ? offset : kSlabAlignment;
  return set;
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
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
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

Json deviceDataToJson(const DeviceData &d) {
  Json doc = Json::object();
  doc["schema"] = kDeviceDataSchema;
  doc["key"] = d.key;
  doc["task"] = d.task;
  doc["device_uuid"] = d.deviceUuid;
  doc["seed"] = d.seed;
  doc["sets"] = d.sets;
  doc["total_bytes"] = d.totalBytes();
  Json configs = Json::array();
  for (const DeviceConfigData &c : d.configs) {
    Json sets = Json::array();
    for (const DeviceSet &s : c.sets) {
      Json buffers = Json::array();
      for (const DeviceBuffer &b : s.buffers)
        buffers.push_back({{"arg", b.arg},
                           {"role", b.role == DeviceBuffer::Role::Input ? "input" : "expected"},
                           {"offset", b.offset},
                           {"bytes", b.bytes},
                           {"checksum", hexEncode(&b.checksum, sizeof b.checksum)}});
      sets.push_back({{"seed", s.seed},
                      {"reference_ms", s.referenceMs},
                      {"expected_from_cache", s.expectedFromCache},
                      {"expected_file", s.expectedFile},
                      {"ipc_handle", s.ipcHandle},
                      {"slab_bytes", s.slabBytes},
                      {"buffers", std::move(buffers)}});
    }
    configs.push_back({{"name", c.name}, {"sets", std::move(sets)}});
  }
  doc["configs"] = std::move(configs);
  return doc;
}

namespace {
const Json &field(const Json &o, const char *name, const std::string &where) {
  if (!o.is_object() || !o.contains(name))
    throw TaskError({where + ": missing \"" + name + "\""});
  return o.at(name);
}
template <typename T> T number(const Json &o, const char *name, const std::string &where) {
  const Json &v = field(o, name, where);
  if (!v.is_number())
    throw TaskError({where + "." + name + ": expected a number"});
  return v.get<T>();
}
std::string text(const Json &o, const char *name, const std::string &where) {
  const Json &v = field(o, name, where);
  if (!v.is_string())
    throw TaskError({where + "." + name + ": expected a string"});
  return v.get<std::string>();
}
const Json &array(const Json &o, const char *name, const std::string &where) {
  const Json &v = field(o, name, where);
  if (!v.is_array())
    throw TaskError({where + "." + name + ": expected an array"});
  return v;
}
} // namespace

DeviceData deviceDataFromJson(const Json &doc) {
  if (text(doc, "schema", "device data") != kDeviceDataSchema)
    throw TaskError({"device data: schema is not " + std::string(kDeviceDataSchema)});
  DeviceData d;
  d.key = text(doc, "key", "device data");
  d.task = text(doc, "task", "device data");
  d.deviceUuid = text(doc, "device_uuid", "device data");
  d.seed = number<uint64_t>(doc, "seed", "device data");
  d.sets = number<int>(doc, "sets", "device data");
  const Json &configs = array(doc, "configs", "device data");
  for (size_t c = 0; c < configs.size(); ++c) {
    std::string where = "configs[" + std::to_string(c) + "]";
    DeviceConfigData cd;
    cd.name = text(configs[c], "name", where);
    const Json &sets = array(configs[c], "sets", where);
    for (size_t s = 0; s < sets.size(); ++s) {
      std::string sw = where + ".sets[" + std::to_string(s) + "]";
      DeviceSet set;
      set.seed = number<uint64_t>(sets[s], "seed", sw);
      set.referenceMs = number<double>(sets[s], "reference_ms", sw);
      set.expectedFromCache = field(sets[s], "expected_from_cache", sw).get<bool>();
      if (sets[s].contains("expected_file") && sets[s]["expected_file"].is_string())
        set.expectedFile = sets[s]["expected_file"].get<std::string>();
      set.ipcHandle = text(sets[s], "ipc_handle", sw);
      set.slabBytes = number<uint64_t>(sets[s], "slab_bytes", sw);
      const Json &buffers = array(sets[s], "buffers", sw);
      for (size_t b = 0; b < buffers.size(); ++b) {
        std::string bw = sw + ".buffers[" + std::to_string(b) + "]";
        DeviceBuffer buf;
        buf.arg = number<size_t>(buffers[b], "arg", bw);
        std::string role = text(buffers[b], "role", bw);
        if (role != "input" && role != "expected")
          throw TaskError({bw + ".role: expected \"input\" or \"expected\""});
        buf.role = role == "input" ? DeviceBuffer::Role::Input : DeviceBuffer::Role::Expected;
        buf.offset = number<uint64_t>(buffers[b], "offset", bw);
        buf.bytes = number<uint64_t>(buffers[b], "bytes", bw);
        if (buf.offset + buf.bytes > set.slabBytes)
          throw TaskError({bw + ": outside its slab"});
        if (!hexDecode(text(buffers[b], "checksum", bw), &buf.checksum, sizeof buf.checksum))
          throw TaskError({bw + ".checksum: expected 16 hex digits"});
        set.buffers.push_back(buf);
      }
      cd.sets.push_back(std::move(set));
    }
    d.configs.push_back(std::move(cd));
  }
  return d;
}

} // namespace cudaperf::runtime
