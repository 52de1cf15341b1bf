// The arithmetic of multi-turn GRPO that needs no LibTorch (docs/training.md, "The algorithm"):
// group-normalized advantages of per-turn discounted returns, and the per-token weights that make
// a mini-batch's loss a plain weighted sum (so micro-batches and data-parallel ranks add up to the
// same loss whatever way the samples are split).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cudaperf::learn {

// One turn of one trajectory of a task group, with its discounted return (null: excluded, the
// evaluator could not judge the candidate).
struct TurnReturn {
  size_t group = 0;      // the task of the step
  size_t trajectory = 0; // 0..G-1 within the group
  size_t turn = 0;       // 0..T-1
  std::optional<double> value;
};

// A_{g,t} = R_{g,t} - mean over the group's trajectories at turn t (their returns that are not
// null), divided by (std + 1e-6) when scale is "std" (population std). Null where the return is
// null, and 0 for a turn index where fewer than two trajectories have a return.
std::vector<std::optional<double>> groupAdvantages(const std::vector<TurnReturn> &returns, const std::string &scale);

// Per-token weights w_i of the loss sum_i w_i sum_t l_{i,t} over a mini-batch of completions with
// `tokens[i]` tokens each, in groups `group[i]`:
//   token:    w = 1 / (total tokens)                   every token counts the same (DAPO)
//   sequence: w = 1 / (count x tokens_i)               each completion counts the same (GRPO)
//   group:    w = 1 / (groups x tokens of i's group)   each task counts the same
// A completion with no token gets weight 0. Throws std::invalid_argument for another name.
std::vector<double> lossTokenWeights(const std::vector<size_t> &tokens, const std::vector<size_t> &group,
                                     const std::string &normalization);

} // namespace cudaperf::learn
