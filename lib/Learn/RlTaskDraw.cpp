#include "cudaperf/Learn/RlTaskDraw.h"

#include <algorithm>

namespace cudaperf::learn {

std::vector<size_t> drawStepTasks(const std::vector<std::string> &taskKinds, const std::vector<std::string> &kindOrder,
                                  int64_t count, std::mt19937_64 &stream) {
  std::vector<std::vector<size_t>> byKind(kindOrder.size());
  for (size_t i = 0; i < taskKinds.size(); ++i)
    for (size_t k = 0; k < kindOrder.size(); ++k)
      if (taskKinds[i] == kindOrder[k]) byKind[k].push_back(i);
  for (std::vector<size_t> &tasks : byKind) std::shuffle(tasks.begin(), tasks.end(), stream);
  std::vector<size_t> drawn, next(kindOrder.size(), 0);
  for (bool any = true; any && int64_t(drawn.size()) < count;) {
    any = false;
    for (size_t k = 0; k < byKind.size() && int64_t(drawn.size()) < count; ++k)
      if (next[k] < byKind[k].size()) {
        drawn.push_back(byKind[k][next[k]++]);
        any = true;
      }
  }
  return drawn;
}

bool samplesDiffer(const TaskSamples &t, double spread) {
  if (t.correct > 0 && t.correct < t.samples) return true;
  return t.anyReward && t.rewardMax - t.rewardMin > spread;
}

std::vector<size_t> uncertainTasks(const std::vector<TaskSamples> &tasks, double spread) {
  std::vector<size_t> out;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (samplesDiffer(tasks[i], spread)) out.push_back(i);
  return out;
}

} // namespace cudaperf::learn
