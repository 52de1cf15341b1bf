// The compact trainer state (TrainerState.h): read and checked with the safetensors reader, converted
// in memory, then written. Trainer::load (Training.cpp) is the other half: it sets the masters.
#include "cudaperf/Learn/TrainerState.h"

#include "cudaperf/Learn/Safetensors.h"
#include "cudaperf/Support/Error.h"
#include "cudaperf/Support/Json.h"
#include "cudaperf/Support/Sha256.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace cudaperf::learn {

namespace fs = std::filesystem;

namespace {

const char *const kStateFiles[] = {"trainer_state.json", "trainable.safetensors", "master.safetensors",
                                   "optimizer.safetensors", "rng.safetensors"};

// support::readRegularFile (a regular file only: never a FIFO or a device), its error as a TrainerError.
std::string readWholeFile(const fs::path &path) {
  try {
    return support::readRegularFile(path.string());
  } catch (const support::SupportError &e) {
    throw TrainerError(e.what());
  }
}

float floatAt(const TensorView &view, int64_t i) {
  if (view.dtype == TensorDtype::F32) {
    float f;
    std::memcpy(&f, view.data + 4 * i, 4);
    return f;
  }
  double d; // F64: the only other dtype checked in
  std::memcpy(&d, view.data + 8 * i, 8);
  return float(d);
}

// "<trainable>.exp_avg" or "<trainable>.exp_avg_sq" -> "<trainable>"; "" for another name.
std::string momentOwner(const std::string &name) {
  for (const std::string suffix : {".exp_avg_sq", ".exp_avg"})
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return name.substr(0, name.size() - suffix.size());
  return "";
}

} // namespace

uint16_t bfloat16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return uint16_t((bits >> 16) | 0x40u); // NaN: quiet, sign kept
  uint32_t roundingBias = 0x7fffu + ((bits >> 16) & 1u);                          // ties to the even result
  return uint16_t((bits + roundingBias) >> 16);
}

std::vector<std::pair<std::string, uintmax_t>> trainerStateFiles(const std::string &dir) {
  std::vector<std::pair<std::string, uintmax_t>> out;
  for (const char *name : kStateFiles) {
    std::error_code ec;
    uintmax_t bytes = fs::file_size(fs::path(dir) / name, ec);
    if (!ec) out.emplace_back(name, bytes);
  }
  return out;
}

CompactTrainerState readCompactTrainerState(const std::string &dir) {
  fs::path folder(dir);
  if (!fs::is_directory(folder)) throw TrainerError(dir + ": not a directory");
  fs::path statePath = folder / "trainer_state.json";
  if (!fs::is_regular_file(statePath)) throw TrainerError(dir + ": not a trainer state (no trainer_state.json)");
  nlohmann::ordered_json state;
  try {
    state = nlohmann::ordered_json::parse(readWholeFile(statePath));
  } catch (const nlohmann::json::exception &e) {
    throw TrainerError(statePath.string() + ": not JSON: " + e.what());
  }
  if (!state.is_object() || state.value("schema", std::string()) != "cudaperf-trainer-state/1")
    throw TrainerError(statePath.string() + ": not a trainer state (schema is not cudaperf-trainer-state/1)");
  if (state.contains("compact") && !(state["compact"].is_boolean() && !state["compact"].get<bool>()))
    throw TrainerError(statePath.string() + ": already compact (\"compact\": " + state["compact"].dump() + ")");
  for (const char *name : {"trainable.safetensors", "rng.safetensors"})
    if (!fs::is_regular_file(folder / name)) throw TrainerError(dir + ": not a trainer state (no " + name + ")");

  SafetensorsFile trainable = SafetensorsFile::open((folder / "trainable.safetensors").string());
  SafetensorsFile::open((folder / "rng.safetensors").string()); // only checked: it is copied as is
  size_t declared = state.value("trainable", size_t(0));
  if (trainable.tensors().size() != declared)
    throw TrainerError(trainable.path() + ": " + std::to_string(trainable.tensors().size()) +
                       " tensors, trainer_state.json says " + std::to_string(declared));

  CompactTrainerState out;
  out.sourceDir = dir;
  nlohmann::ordered_json from = nlohmann::ordered_json::object();
  for (const char *name : {"trainable.safetensors", "master.safetensors", "optimizer.safetensors"})
    if (fs::exists(folder / name)) from[name] = support::sha256Hex(readWholeFile(folder / name));

  if (fs::exists(folder / "optimizer.safetensors")) {
    SafetensorsFile optimizer = SafetensorsFile::open((folder / "optimizer.safetensors").string());
    out.optimizerMetadata = optimizer.metadata();
    for (const TensorView &view : optimizer.tensors()) {
      std::string where = optimizer.path() + ": " + view.name;
      std::string owner = momentOwner(view.name);
      const TensorView *weight = owner.empty() ? nullptr : trainable.find(owner);
      if (!weight) throw TrainerError(where + ": not the moment of a trainable tensor (<name>.exp_avg or .exp_avg_sq)");
      if (view.shape != weight->shape)
        throw TrainerError(where + " has shape " + shapeText(view.shape) + ", its weight " + shapeText(weight->shape));
      if (view.dtype != TensorDtype::F32 && view.dtype != TensorDtype::F64 && view.dtype != TensorDtype::BF16)
        throw TrainerError(where + " is " + dtypeName(view.dtype) + ", a moment is F32 (or F64, BF16)");
      CompactTrainerState::Moment m{view.name, view.shape, std::vector<uint16_t>(size_t(view.elements()))};
      if (view.dtype == TensorDtype::BF16) std::memcpy(m.bf16.data(), view.data, view.bytes);
      else
        for (int64_t i = 0; i < view.elements(); ++i) m.bf16[size_t(i)] = bfloat16Bits(floatAt(view, i));
      out.moments.push_back(std::move(m));
    }
  }
  state["compact"] = true;
  state["compacted_from"] = from;
  out.stateJson = state.dump(2) + "\n";
  return out;
}

void writeCompactTrainerState(const CompactTrainerState &state, const std::string &out) {
  fs::path folder(out);
  if (fs::exists(folder) && !(fs::is_directory(folder) && fs::is_empty(folder)))
    throw TrainerError(out + ": exists and is not an empty directory");
  fs::create_directories(folder);
  fs::path source(state.sourceDir);
  for (const char *name : {"trainable.safetensors", "rng.safetensors"})
    fs::copy_file(source / name, folder / name);
  if (!state.moments.empty()) {
    std::vector<TensorToWrite> tensors;
    for (const CompactTrainerState::Moment &m : state.moments)
      tensors.push_back({m.name, TensorDtype::BF16, m.shape, m.bf16.data(), m.bf16.size() * sizeof(uint16_t)});
    std::map<std::string, std::string> metadata = state.optimizerMetadata;
    if (metadata.empty()) metadata = {{"format", "pt"}};
    writeSafetensors((folder / "optimizer.safetensors").string(), tensors, metadata);
  }
  std::ofstream json(folder / "trainer_state.json");
  json << state.stateJson;
  if (!json) throw TrainerError((folder / "trainer_state.json").string() + ": write failed");
}

} // namespace cudaperf::learn
