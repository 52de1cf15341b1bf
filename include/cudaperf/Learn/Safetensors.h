// The safetensors format (Hugging Face): an 8-byte little-endian header length, a JSON header
// naming every tensor's dtype, shape and byte range, then the raw bytes. Files are read through
// mmap, so opening a multi-gigabyte checkpoint costs nothing until a tensor is copied out. A
// checkpoint folder holds either model.safetensors or shards listed by model.safetensors.index.json.
// No LibTorch here: lib/Learn's model code turns a TensorView into a torch::Tensor.
#pragma once

#include "cudaperf/Learn/Error.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudaperf::learn {

enum class TensorDtype { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

size_t dtypeBytes(TensorDtype dtype);
const char *dtypeName(TensorDtype dtype);   // "F32", "BF16", ... as written in the header
TensorDtype parseDtypeName(const std::string &name); // throws SafetensorsError for others (F8_*, U16, ...)

// One tensor inside a mapped file; data stays valid while the file that produced it is open.
struct TensorView {
  std::string name;
  TensorDtype dtype = TensorDtype::F32;
  std::vector<int64_t> shape;
  const uint8_t *data = nullptr;
  size_t bytes = 0;

  int64_t elements() const;
};

std::string shapeText(const std::vector<int64_t> &shape); // "[4, 16]"

// One mapped .safetensors file. Move-only; unmaps on destruction.
class SafetensorsFile {
public:
  static SafetensorsFile open(const std::string &path); // throws SafetensorsError naming the path and fault
  SafetensorsFile(SafetensorsFile &&other) noexcept;
  SafetensorsFile &operator=(SafetensorsFile &&other) noexcept;
  SafetensorsFile(const SafetensorsFile &) = delete;
  SafetensorsFile &operator=(const SafetensorsFile &) = delete;
  ~SafetensorsFile();

  const std::string &path() const { return path_; }
  const std::vector<TensorView> &tensors() const { return tensors_; } // in header order
  const TensorView *find(const std::string &name) const;
  const std::map<std::string, std::string> &metadata() const { return metadata_; }

private:
  SafetensorsFile() = default;
  std::string path_;
  void *mapping_ = nullptr;
  size_t mappedBytes_ = 0;
  std::vector<TensorView> tensors_;
  std::map<std::string, size_t> index_;
  std::map<std::string, std::string> metadata_;
};

// A checkpoint folder: model.safetensors, or model.safetensors.index.json and its shards. Every
// tensor name resolves to one view; a name listed by the index but absent from its shard is an error.
class SafetensorsCheckpoint {
public:
  static SafetensorsCheckpoint openFolder(const std::string &dir);
  // A single file or an index file given directly.
  static SafetensorsCheckpoint openPath(const std::string &path);

  const TensorView *find(const std::string &name) const;
  std::vector<std::string> names() const; // sorted
  size_t totalBytes() const;              // sum of all tensors' bytes
  const std::vector<std::string> &files() const { return files_; }
  const std::map<std::string, std::string> &metadata() const; // the first file's

private:
  std::vector<std::string> files_;
  std::vector<std::unique_ptr<SafetensorsFile>> opened_;
  std::map<std::string, const TensorView *> byName_;
};

// A tensor to write: bytes in the given dtype, row-major, little-endian.
struct TensorToWrite {
  std::string name;
  TensorDtype dtype = TensorDtype::F32;
  std::vector<int64_t> shape;
  const void *data = nullptr;
  size_t bytes = 0;
};

// Writes one file (tensors in the given order; the header padded with spaces to 8 bytes, as the
// reference implementation does). Throws SafetensorsError on duplicate names, a byte count that
// does not match the shape, or an I/O failure.
void writeSafetensors(const std::string &path, const std::vector<TensorToWrite> &tensors,
                      const std::map<std::string, std::string> &metadata = {{"format", "pt"}});

// Writes DIR/BASE.safetensors when everything fits in maxShardBytes, otherwise
// DIR/BASE-0000k-of-0000n.safetensors plus DIR/BASE.safetensors.index.json (weight_map, total_size),
// the layout transformers' save_pretrained produces. A tensor larger than maxShardBytes gets a shard of
// its own. Returns the files written (names relative to dir). Stale files of the other layout are removed.
std::vector<std::string> writeSafetensorsSharded(const std::string &dir, const std::vector<TensorToWrite> &tensors,
                                                 size_t maxShardBytes, const std::string &base = "model",
                                                 const std::map<std::string, std::string> &metadata = {
                                                     {"format", "pt"}});

} // namespace cudaperf::learn
