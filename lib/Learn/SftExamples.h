// SFT's examples (docs/training.md, "cudaperf-train sft"): built from the dataset's tasks, tokenized and
// packed into micro-batches of similar lengths. No LibTorch (Sft.cpp turns them into batches).
#pragma once

#include "cudaperf/Learn/Manifest.h"
#include "cudaperf/Learn/Prompt.h"
#include "cudaperf/Learn/Tokenizer.h"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace cudaperf::learn {
struct MeasuredResults; // MeasuredExamples.h (lib/Reward's feedback: builds with CUDAPERF_HAVE_RL)
}

namespace cudaperf::learn::sft {

// One SFT example: the rendered prompt and one implementation as the answer.
struct Example {
  std::string prompt, answer;
  std::vector<int32_t> ids;
  size_t promptTokens = 0;
  bool refinement = false; // a second turn: an earlier answer and its feedback in the prompt
  std::string repair;      // a repair example's mutation (RepairExamples.h); empty for the others
  bool measured = false;   // a measured refinement example (MeasuredExamples.h): slowest measured, its feedback, fastest
};

struct ExampleSet {
  std::vector<Example> examples;
  size_t tasks = 0, skippedTasks = 0;
  std::vector<std::string> skipReasons; // the first few
};

// The whole file; ModelError "PATH: cannot open".
std::string readFile(const std::string &path);

// Runs f(i) for i in [0, n) on `threads` threads; the first exception is rethrown.
void parallelFor(size_t n, unsigned threads, const std::function<void(size_t)> &f);
unsigned hardwareThreads();

// One example per implementation (the task's first turn); with `refinement`, also one two-turn example
// per task that has a slow-then-fast pair (the turn the RL trainer's later turns ask for); with `repair`,
// also one two-turn example per task whose earlier answer is one of its implementations broken so that
// it does not compile, with the feedback RL gives that, and whose answer is the intact implementation
// (docs/training.md, "Repair examples"; chosen from (seed, task name)). The examples of a task keep this
// order, so without repair examples the set is the one built before they existed. With `measured`, also
// one two-turn example per task of the split that has a measured slow-then-fast pair (chooseMeasuredPair:
// the slowest measured implementation, RL's feedback on its stored result, the fastest), after the others.
ExampleSet buildExamples(const std::vector<ManifestTask> &tasks, const std::string &split,
                         const std::set<std::string> &kinds, const PromptOptions &promptOptions, bool refinement,
                         bool repair = false, uint64_t seed = 0, const MeasuredResults *measured = nullptr);

// prompt ids, answer ids, end-of-turn id; the loss covers the answer and the end of turn.
void encodeExamples(std::vector<Example> &examples, const Tokenizer &tokenizer, int32_t endOfTurn);

// Micro-batches of similar lengths, each at most `tokens` padded tokens (at least one row).
std::vector<std::vector<size_t>> packByLength(const std::vector<Example> &examples, int64_t tokens);

int64_t countRefinements(const std::vector<Example> &examples);
int64_t countMeasured(const std::vector<Example> &examples);
// Repair examples, of one mutation ("truncation", "undeclared_identifier") or of all (empty).
int64_t countRepairs(const std::vector<Example> &examples, const std::string &mutation = "");

} // namespace cudaperf::learn::sft
