// The exception of lib/Learn's model side (safetensors, config.json, the model, generation, training,
// the prompt format): one type, derived from std::runtime_error, whose message names the file, field,
// tensor or value at fault (docs/architecture.md, "Conventions of the non-LLVM libraries"). The names
// below are aliases that say which part threw; a catch of LearnError catches them all. The tokenizer
// keeps its own TokenizerError (include/cudaperf/Learn/Tokenizer.h).
#pragma once

#include <stdexcept>

namespace cudaperf::learn {

class LearnError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

using SafetensorsError = LearnError;
using ModelConfigError = LearnError;
using ModelError = LearnError;
using TrainerError = LearnError;
using PromptError = LearnError;

} // namespace cudaperf::learn
