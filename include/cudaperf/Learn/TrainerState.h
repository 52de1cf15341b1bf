// The compact form of a trainer state (Training.h, Trainer::save), small enough to travel with an RL
// arm between GPU sessions inside the device's 64 MiB working tree: trainable.safetensors and
// rng.safetensors as they are, no master.safetensors (Trainer::load sets the fp32 masters from the
// bf16 trainable weights), the AdamW moments in bfloat16 (round to nearest even), and
// trainer_state.json with "compact": true and "compacted_from" (sha256 of the original files). What
// is lost: the masters' bits below bf16 and the moments' below bf16 (relative 2^-8 at most). No
// LibTorch here.
#pragma once

#include "cudaperf/Learn/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cudaperf::learn {

// A state read, checked and converted in memory, before anything is written.
struct CompactTrainerState {
  struct Moment {
    std::string name;
    std::vector<int64_t> shape;
    std::vector<uint16_t> bf16;
  };
  std::string sourceDir;
  std::string stateJson;        // trainer_state.json with "compact" and "compacted_from" added
  std::vector<Moment> moments;  // optimizer.safetensors's tensors in file order; none at step 0
  std::map<std::string, std::string> optimizerMetadata;
};

// Reads DIR's trainer state and builds its compact form. Throws TrainerError naming the file and
// tensor at fault: no trainer state (missing trainer_state.json, trainable.safetensors or
// rng.safetensors, another schema), a state already compact, a moment that is not named
// "<trainable>.exp_avg" / ".exp_avg_sq", is not F32 / BF16 / F64 or has another shape than its weight.
CompactTrainerState readCompactTrainerState(const std::string &dir);
// Writes it into OUT, which must not exist or be empty (TrainerError otherwise); trainer_state.json
// last, so a partial folder is no trainer state.
void writeCompactTrainerState(const CompactTrainerState &state, const std::string &out);

// float -> bfloat16 bits, round to nearest even (as torch's .to(torch::kBFloat16)); NaN stays a quiet NaN.
uint16_t bfloat16Bits(float value);

// The files of a trainer state in DIR that exist, with their sizes in bytes (save's five names).
std::vector<std::pair<std::string, uintmax_t>> trainerStateFiles(const std::string &dir);

// `cudaperf-train compact-state --state DIR --out DIR` (TrainerStateCommand.cpp): exit 0; 2 for bad
// usage or a refused state or --out (one line on stderr); 1 when writing fails.
int runCompactStateCommand(const std::vector<std::string> &argv);

} // namespace cudaperf::learn
