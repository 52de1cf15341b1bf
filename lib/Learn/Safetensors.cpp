// Safetensors reader (mmap) and writer. Format: https://huggingface.co/docs/safetensors (header =
// u64 little-endian length N, N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]},
// "__metadata__": {string: string}}, then the data; offsets are relative to the end of the header).
#include "cudaperf/Learn/Safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudaperf::learn {

namespace fs = std::filesystem;

namespace {

struct DtypeInfo {
  TensorDtype dtype;
  const char *name;
  size_t bytes;
};
constexpr DtypeInfo kDtypes[] = {
    {TensorDtype::F64, "F64", 8}, {TensorDtype::F32, "F32", 4},  {TensorDtype::F16, "F16", 2},
    {TensorDtype::BF16, "BF16", 2}, {TensorDtype::I64, "I64", 8}, {TensorDtype::I32, "I32", 4},
    {TensorDtype::I16, "I16", 2}, {TensorDtype::I8, "I8", 1},    {TensorDtype::U8, "U8", 1},
    {TensorDtype::Bool, "BOOL", 1},
};

const DtypeInfo &info(TensorDtype dtype) {
  for (const DtypeInfo &d : kDtypes)
    if (d.dtype == dtype) return d;
  throw SafetensorsError("unknown tensor dtype");
}

// A header larger than this is not a checkpoint (the reference implementation uses 100 MB).
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;

// A JSON array of integers in T's range, element by element: nlohmann's get<std::vector<T>>() casts
// a float such as 1e65 to T, undefined behaviour (found by fuzz-Safetensors), and 1.5 to 1.
// (support::JsonField::integer reads ordered_json and throws SupportError; this reader's header is
// plain nlohmann::json and its callers expect SafetensorsError, and it takes no 4.0 for an integer.)
template <typename T> std::vector<T> integerList(const nlohmann::json &v, const std::string &what) {
  if (!v.is_array()) throw SafetensorsError(what + " is not an array");
  std::vector<T> out;
  for (const nlohmann::json &e : v) {
    if (e.is_number_unsigned()) {
      uint64_t u = e.get<uint64_t>();
      if (u > uint64_t(std::numeric_limits<T>::max())) throw SafetensorsError(what + ": " + e.dump() + " is too large");
      out.push_back(T(u));
    } else if (e.is_number_integer()) {
      int64_t i = e.get<int64_t>();
      if (i < 0 && !std::numeric_limits<T>::is_signed) throw SafetensorsError(what + ": " + e.dump() + " is negative");
      out.push_back(T(i));
    } else {
      throw SafetensorsError(what + ": " + e.dump().substr(0, 40) + " is not an integer");
    }
  }
  return out;
}

int64_t checkedElements(const std::vector<int64_t> &shape, const std::string &where) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw SafetensorsError(where + ": negative dimension in shape " + shapeText(shape));
    if (d != 0 && n > (int64_t(1) << 62) / d) throw SafetensorsError(where + ": shape " + shapeText(shape) + " too large");
    n *= d;
  }
  return n;
}

} // namespace

size_t dtypeBytes(TensorDtype dtype) { return info(dtype).bytes; }
const char *dtypeName(TensorDtype dtype) { return info(dtype).name; }

TensorDtype parseDtypeName(const std::string &name) {
  for (const DtypeInfo &d : kDtypes)
    if (name == d.name) return d.dtype;
  throw SafetensorsError("unsupported tensor dtype '" + name + "' (supported: F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL)");
}

int64_t TensorView::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

SafetensorsFile SafetensorsFile::open(const std::string &path) {
  SafetensorsFile file;
  file.path_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw SafetensorsError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw SafetensorsError(path + ": not a regular file");
  }
  size_t size = size_t(st.st_size);
  if (size < 8) {
    ::close(fd);
    throw SafetensorsError(path + ": " + std::to_string(size) + " bytes, too short for a safetensors header");
  }
  void *map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw SafetensorsError(path + ": mmap failed: " + std::strerror(errno));
  file.mapping_ = map;
  file.mappedBytes_ = size;
  const uint8_t *bytes = static_cast<const uint8_t *>(map);

  uint64_t headerBytes = 0;
  for (int i = 7; i >= 0; --i) headerBytes = (headerBytes << 8) | bytes[i];
  if (headerBytes > kMaxHeaderBytes || headerBytes > size - 8)
    throw SafetensorsError(path + ": header length " + std::to_string(headerBytes) + " exceeds the file (" +
                           std::to_string(size) + " bytes)");
  const uint8_t *dataStart = bytes + 8 + headerBytes;
  size_t dataBytes = size - 8 - headerBytes;

  nlohmann::json header;
  try {
    header = nlohmann::json::parse(reinterpret_cast<const char *>(bytes + 8),
                                   reinterpret_cast<const char *>(bytes + 8 + headerBytes));
  } catch (const nlohmann::json::exception &e) {
    throw SafetensorsError(path + ": header is not JSON: " + e.what());
  }
  if (!header.is_object()) throw SafetensorsError(path + ": header is not a JSON object");

  std::vector<std::pair<size_t, size_t>> ranges;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string &name = it.key();
    if (name == "__metadata__") {
      if (!it->is_object()) throw SafetensorsError(path + ": __metadata__ is not an object");
      for (auto m = it->begin(); m != it->end(); ++m)
        if (m->is_string()) file.metadata_[m.key()] = m->get<std::string>();
      continue;
    }
    std::string where = path + ": tensor '" + name + "'";
    const nlohmann::json &t = *it;
    if (!t.is_object() || !t.contains("dtype") || !t.contains("shape") || !t.contains("data_offsets"))
      throw SafetensorsError(where + ": needs dtype, shape and data_offsets");
    TensorView view;
    view.name = name;
    try {
      view.dtype = parseDtypeName(t["dtype"].get<std::string>());
      view.shape = integerList<int64_t>(t["shape"], "shape");
      auto offsets = integerList<uint64_t>(t["data_offsets"], "data_offsets");
      if (offsets.size() != 2) throw SafetensorsError("data_offsets must have two entries");
      if (offsets[0] > offsets[1] || offsets[1] > dataBytes)
        throw SafetensorsError("data_offsets [" + std::to_string(offsets[0]) + ", " + std::to_string(offsets[1]) +
                               "] outside the " + std::to_string(dataBytes) + " data bytes");
      int64_t elements = checkedElements(view.shape, where);
      if (uint64_t(elements) * dtypeBytes(view.dtype) != offsets[1] - offsets[0])
        throw SafetensorsError("shape " + shapeText(view.shape) + " of " + dtypeName(view.dtype) + " needs " +
                               std::to_string(uint64_t(elements) * dtypeBytes(view.dtype)) + " bytes, data_offsets give " +
                               std::to_string(offsets[1] - offsets[0]));
      view.data = dataStart + offsets[0];
      view.bytes = size_t(offsets[1] - offsets[0]);
      ranges.emplace_back(size_t(offsets[0]), size_t(offsets[1]));
    } catch (const SafetensorsError &e) {
      throw SafetensorsError(where + ": " + e.what());
    } catch (const nlohmann::json::exception &e) {
      throw SafetensorsError(where + ": " + e.what());
    }
    file.tensors_.push_back(std::move(view));
  }
  // Overlapping byte ranges would let one write alias another tensor: the format forbids them.
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second && ranges[i].first != ranges[i].second)
      throw SafetensorsError(path + ": tensors overlap in the data section");
  // Header order is JSON object order (sorted by nlohmann::json); keep the file's byte order instead.
  std::sort(file.tensors_.begin(), file.tensors_.end(),
            [](const TensorView &a, const TensorView &b) { return a.data < b.data; });
  for (size_t i = 0; i < file.tensors_.size(); ++i) file.index_[file.tensors_[i].name] = i;
  return file;
}

SafetensorsFile::SafetensorsFile(SafetensorsFile &&other) noexcept { *this = std::move(other); }

SafetensorsFile &SafetensorsFile::operator=(SafetensorsFile &&other) noexcept {
  if (this != &other) {
    if (mapping_) munmap(mapping_, mappedBytes_);
    path_ = std::move(other.path_);
    mapping_ = other.mapping_;
    mappedBytes_ = other.mappedBytes_;
    tensors_ = std::move(other.tensors_);
    index_ = std::move(other.index_);
    metadata_ = std::move(other.metadata_);
    other.mapping_ = nullptr;
    other.mappedBytes_ = 0;
  }
  return *this;
}

SafetensorsFile::~SafetensorsFile() {
  if (mapping_) munmap(mapping_, mappedBytes_);
}

const TensorView *SafetensorsFile::find(const std::string &name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

SafetensorsCheckpoint SafetensorsCheckpoint::openFolder(const std::string &dir) {
  fs::path folder(dir);
  if (!fs::is_directory(folder)) throw SafetensorsError(dir + ": not a directory");
  if (fs::exists(folder / "model.safetensors.index.json"))
    return openPath((folder / "model.safetensors.index.json").string());
  if (fs::exists(folder / "model.safetensors")) return openPath((folder / "model.safetensors").string());
  throw SafetensorsError(dir + ": no model.safetensors or model.safetensors.index.json");
}

SafetensorsCheckpoint SafetensorsCheckpoint::openPath(const std::string &path) {
  SafetensorsCheckpoint ckpt;
  auto add = [&](const std::string &file) {
    ckpt.opened_.push_back(std::make_unique<SafetensorsFile>(SafetensorsFile::open(file)));
    ckpt.files_.push_back(file);
    return ckpt.opened_.back().get();
  };
  std::string suffix = ".index.json";
  if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
    std::ifstream in(path);
    if (!in) throw SafetensorsError(path + ": cannot open");
    nlohmann::json index;
    try {
      index = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
      throw SafetensorsError(path + ": not JSON: " + e.what());
    }
    if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
      throw SafetensorsError(path + ": no weight_map object");
    fs::path folder = fs::path(path).parent_path();
    std::map<std::string, SafetensorsFile *> shards;
    for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
      if (!it->is_string()) throw SafetensorsError(path + ": weight_map['" + it.key() + "'] is not a file name");
      std::string shard = it->get<std::string>();
      if (shard.find('/') != std::string::npos || shard == "..")
        throw SafetensorsError(path + ": weight_map['" + it.key() + "'] = '" + shard + "' is not a file in the folder");
      if (!shards.count(shard)) shards[shard] = add((folder / shard).string());
      const TensorView *view = shards[shard]->find(it.key());
      if (!view)
        throw SafetensorsError(path + ": tensor '" + it.key() + "' is listed in weight_map but missing from " + shard);
      ckpt.byName_[it.key()] = view;
    }
    return ckpt;
  }
  SafetensorsFile *file = add(path);
  for (const TensorView &view : file->tensors()) ckpt.byName_[view.name] = &view;
  return ckpt;
}

const TensorView *SafetensorsCheckpoint::find(const std::string &name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : it->second;
}

std::vector<std::string> SafetensorsCheckpoint::names() const {
  std::vector<std::string> out;
  for (const auto &entry : byName_) out.push_back(entry.first);
  return out;
}

size_t SafetensorsCheckpoint::totalBytes() const {
  size_t total = 0;
  for (const auto &entry : byName_) total += entry.second->bytes;
  return total;
}

const std::map<std::string, std::string> &SafetensorsCheckpoint::metadata() const {
  static const std::map<std::string, std::string> empty;
  return opened_.empty() ? empty : opened_.front()->metadata();
}

void writeSafetensors(const std::string &path, const std::vector<TensorToWrite> &tensors,
                      const std::map<std::string, std::string> &metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (const TensorToWrite &t : tensors) {
    if (t.name.empty() || t.name == "__metadata__")
      throw SafetensorsError(path + ": invalid tensor name '" + t.name + "'");
    if (!seen.insert(t.name).second) throw SafetensorsError(path + ": tensor '" + t.name + "' written twice");
    int64_t elements = checkedElements(t.shape, path + ": tensor '" + t.name + "'");
    if (uint64_t(elements) * dtypeBytes(t.dtype) != t.bytes)
      throw SafetensorsError(path + ": tensor '" + t.name + "': shape " + shapeText(t.shape) + " of " +
                             dtypeName(t.dtype) + " needs " + std::to_string(uint64_t(elements) * dtypeBytes(t.dtype)) +
                             " bytes, given " + std::to_string(t.bytes));
    header[t.name] = {{"dtype", dtypeName(t.dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes}}};
    offset += t.bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw SafetensorsError(path + ": cannot write: " + std::strerror(errno));
    uint64_t n = text.size();
    char length[8];
    for (int i = 0; i < 8; ++i) length[i] = char((n >> (8 * i)) & 0xff);
    out.write(length, 8);
    out.write(text.data(), std::streamsize(text.size()));
    for (const TensorToWrite &t : tensors) out.write(static_cast<const char *>(t.data), std::streamsize(t.bytes));
    out.flush();
    if (!out) throw SafetensorsError(path + ": write failed (disk full?)");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw SafetensorsError(path + ": cannot rename the written file: " + ec.message());
}

std::vector<std::string> writeSafetensorsSharded(const std::string &dir, const std::vector<TensorToWrite> &tensors,
                                                 size_t maxShardBytes, const std::string &base,
                                                 const std::map<std::string, std::string> &metadata) {
  if (maxShardBytes == 0) throw SafetensorsError("shard size must be positive");
  fs::create_directories(dir);
  // Greedy in the given order, so shards keep layers together as save_pretrained does.
  std::vector<std::vector<TensorToWrite>> shards(1);
  size_t current = 0, total = 0;
  for (const TensorToWrite &t : tensors) {
    if (current > 0 && current + t.bytes > maxShardBytes) {
      shards.emplace_back();
      current = 0;
    }
    shards.back().push_back(t);
    current += t.bytes;
    total += t.bytes;
  }
  fs::path folder(dir);
  std::string single = base + ".safetensors";
  std::string indexName = base + ".safetensors.index.json";
  // Remove the other layout's files, so a folder never holds both (loaders would pick one).
  std::error_code ec;
  fs::remove(folder / single, ec);
  fs::remove(folder / indexName, ec);
  for (const auto &entry : fs::directory_iterator(folder)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(base + "-", 0) == 0 && name.size() > 12 && name.substr(name.size() - 12) == ".safetensors")
      fs::remove(entry.path(), ec);
  }
  if (shards.size() == 1) {
    writeSafetensors((folder / single).string(), shards[0], metadata);
    return {single};
  }
  std::vector<std::string> written;
  nlohmann::ordered_json weightMap = nlohmann::ordered_json::object();
  char name[256];
  for (size_t i = 0; i < shards.size(); ++i) {
    std::snprintf(name, sizeof name, "%s-%05zu-of-%05zu.safetensors", base.c_str(), i + 1, shards.size());
    writeSafetensors((folder / name).string(), shards[i], metadata);
    for (const TensorToWrite &t : shards[i]) weightMap[t.name] = name;
    written.push_back(name);
  }
  nlohmann::ordered_json index = {{"metadata", {{"total_size", total}}}, {"weight_map", weightMap}};
  std::ofstream out(folder / indexName);
  out << index.dump(2) << "\n";
  if (!out) throw SafetensorsError((folder / indexName).string() + ": write failed");
  written.push_back(indexName);
  return written;
}

} // namespace cudaperf::learn
