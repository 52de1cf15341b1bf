// The tasks of one RL step (docs/training.md, "Task kinds"): drawn from a seeded stream, so a resumed
// run draws the same ones. With several kinds (c, pytorch) every step takes them in turn, each kind's
// tasks in a shuffled order, so a step of N tasks has N/k of each kind (one more for the first kinds
// of the turn when k does not divide N) as long as a kind has tasks left; a kind without tasks is
// skipped. No LibTorch.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace cudaperf::learn {

// Indices into `taskKinds` (the kind of each training task), at most `count`, all different.
// `kindOrder`: the kinds in the order they take turns (the config's `kinds`).
std::vector<size_t> drawStepTasks(const std::vector<std::string> &taskKinds, const std::vector<std::string> &kindOrder,
                                  int64_t count, std::mt19937_64 &stream);

// Task selection by uncertainty (config task_selection: uncertain; issue 34 item 4): what G samples of
// the starting policy earned on one task. A task is worth learning from when its samples differ: some
// correct and some not, or rewards further apart than `spread` (a group of equal rewards has zero
// advantages and teaches nothing).
struct TaskSamples {
  int64_t samples = 0, correct = 0;
  double rewardMin = 0, rewardMax = 0; // over the samples with a reward
  bool anyReward = false;
};
bool samplesDiffer(const TaskSamples &t, double spread = 1e-9);
// Indices of the tasks whose samples differ, in order.
std::vector<size_t> uncertainTasks(const std::vector<TaskSamples> &tasks, double spread = 1e-9);

} // namespace cudaperf::learn
