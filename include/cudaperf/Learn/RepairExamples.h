// SFT's repair examples (docs/training.md, "Repair examples"): one of a task's implementations broken in
// a way whose compile error is certain by construction, the log nvcc prints for it in the evaluator's
// build predicted from the source (no compiler runs here), and lib/Reward's feedback text for that log,
// worded as the RL environment words it. The answer of such an example is the intact implementation.
//
// What nvcc prints was read off nvcc itself (13.0, the GPU host's version; test/learn/repair-nvcc-test.sh
// compiles a sample of the mutations and compares): the evaluator's shim.cu includes candidate.cu and then
// defines its own extern "C" entry, and nvcc's front end shows each source line as the host preprocessor
// left it (comments gone, runs of blanks one space, macros expanded). A mutation is only made where every
// line the log shows can be predicted that way; everything else is left alone. No LibTorch.
#pragma once

#include "cudaperf/Runtime/Task.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::learn {

enum class RepairMutation {
  // The answer cut off after a complete line inside a void function's body, as at the token cap: nvcc
  // reads the shim's entry inside the open block ("linkage specification is not allowed", then one
  // `expected a "}"` per open block).
  Truncation,
  // One use of a function's parameter replaced by a parameter name of another function of the task's
  // implementations that is not declared where it is used: `identifier "x" is undefined`.
  UndeclaredIdentifier,
};
const char *repairMutationName(RepairMutation mutation); // "truncation", "undeclared_identifier"

struct BrokenAnswer {
  RepairMutation mutation = RepairMutation::Truncation;
  std::string source;     // the broken answer
  std::string compileLog; // nvcc's log as the evaluator records it (paths relative, its shim hint appended)
  std::string feedback;   // lib/Reward's feedback for that compile error (repairFeedback); empty until filled
  int line = 0;           // truncation: the last line kept; undeclared identifier: the line of the renamed use
  int openBlocks = 0;     // truncation: blocks left open at the cut
  std::string identifier; // undeclared identifier: the name written
  std::string replaced;   // undeclared identifier: the parameter it replaced
};

// Every truncation of `source` whose log is predictable: one per eligible cut (after a line ending in
// `;`, `{` or `}` with parentheses closed, inside the body of a void function (nvcc warns of the missing
// return of any other) whose open blocks are plain blocks, loops or branches (no do, switch or
// initializer), and whose open-brace lines nvcc quotes predictably), in line order. Feedback empty.
std::vector<BrokenAnswer> truncations(const runtime::Task &task, const std::string &source);

// nvcc's log for `truncated` when it is a truncation of the predictable kind above of a source that
// compiles (the text before the cut is not checked); nullopt otherwise. Used to check the prediction
// against stored RL answers the token cap cut.
std::optional<std::string> truncationLog(const runtime::Task &task, const std::string &truncated);

// Every predictable undeclared-identifier mutation of `source`: per use of a parameter inside its
// function (the parameter used at least twice there, never redeclared), each replacement name from
// `otherSources`' and this source's other functions' parameters that is declared nowhere in that
// function, not at file scope, not a macro, and not a name the CUDA headers declare (a fixed list,
// checked against the headers by repair-nvcc-test.sh). In source order. Feedback empty.
std::vector<BrokenAnswer> undeclaredIdentifiers(const runtime::Task &task, const std::string &source,
                                                const std::vector<std::string> &otherSources);

// lib/Reward's feedback text for a compile error with this log: what the RL environment shows for it
// (the built-in reward config, as data/rl/h200.json uses).
std::string repairFeedback(const runtime::Task &task, const std::string &compileLog);

struct RepairChoice {
  size_t implementation = 0; // the index of the broken implementation in `sources` (its intact text is the answer)
  BrokenAnswer broken;       // with its feedback
};

// The task's repair example, a function of (seed, task name) only: the mutation (a truncation four times
// in five, else an undeclared identifier, as RL run 3's 82 truncated and 20 other compile errors of turn 1;
// the other kind when the drawn one applies to no implementation), the implementation, then the cut (in the
// later half of the file where one is eligible) or the renamed use and the name. nullopt when neither
// mutation applies to any implementation.
std::optional<RepairChoice> chooseRepair(const runtime::Task &task, const std::vector<std::string> &sources,
                                         uint64_t seed);

} // namespace cudaperf::learn
