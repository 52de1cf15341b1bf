#include "SftExamples.h"

#ifdef CUDAPERF_HAVE_RL
#include "cudaperf/Learn/MeasuredExamples.h"
#include "cudaperf/Learn/RepairExamples.h"
#include "cudaperf/Support/Sha256.h"
#endif

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace cudaperf::learn::sft {

namespace fs = std::filesystem;

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

// The feedback of a refinement example (docs/training.md, "Refinement examples"). Only what is true of
// the earlier answer by construction: a dataset implementation is correct, and its strategy labels say
// what its code does; it was not timed.
std::string refinementFeedback(const std::vector<std::string> &strategies) {
  std::string what;
  for (const std::string &s : strategies) {
    std::string words = s;
    std::replace(words.begin(), words.end(), '_', ' ');
    what += (what.empty() ? "" : ", ") + words;
  }
  return "Outcome: ok, correct (a training example: not timed).\n" +
         (what.empty() ? std::string() : "The code's strategy: " + what + ".\n");
}

// A task's refinement example: an implementation the generator expects to be slow (else the baseline)
// as the earlier turn, one it expects to be fast as the answer. -1, -1 when the task has no such pair.
std::pair<int, int> refinementPair(const ManifestTask &t) {
  int fast = -1, slow = -1, neutral = -1;
  for (size_t i = 0; i < t.expected.size(); ++i) {
    if (t.expected[i] == "fast" && fast < 0) fast = int(i);
    if (t.expected[i] == "slow" && slow < 0) slow = int(i);
    if (t.expected[i] == "neutral" && neutral < 0) neutral = int(i);
  }
  int earlier = slow >= 0 ? slow : neutral;
  return fast >= 0 && earlier >= 0 ? std::pair<int, int>{earlier, fast} : std::pair<int, int>{-1, -1};
}

} // namespace

void parallelFor(size_t n, unsigned threads, const std::function<void(size_t)> &f) {
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex errorMutex;
  auto work = [&] {
    for (size_t i; (i = next++) < n;) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(errorMutex);
        if (!error) error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, threads); ++t) pool.emplace_back(work);
  work();
  for (auto &t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

unsigned hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

ExampleSet buildExamples(const std::vector<ManifestTask> &tasks, const std::string &split,
                         const std::set<std::string> &kinds, const PromptOptions &promptOptions, bool refinement,
                         bool repair, uint64_t seed, const MeasuredResults *measured) {
  std::vector<const ManifestTask *> chosen;
  for (const ManifestTask &t : tasks)
    if (t.split == split && (kinds.empty() || kinds.count(t.kind))) chosen.push_back(&t);
  std::vector<std::vector<Example>> perTask(chosen.size());
  std::vector<std::string> errors(chosen.size());
  parallelFor(chosen.size(), hardwareThreads(), [&](size_t i) {
    try {
      const ManifestTask &t = *chosen[i];
      PolicyTask task = loadPolicyTask(t.dir);
      std::string prompt = renderPolicyPrompt(policyMessages(task, {}, promptOptions));
      std::vector<std::string> sources;
      for (const std::string &file : t.implementations) sources.push_back(readFile((fs::path(t.dir) / file).string()));
      for (const std::string &source : sources) perTask[i].push_back({prompt, candidateAnswer(source), {}, 0, false, ""});
      if (auto [earlier, answer] = refinementPair(t); refinement && earlier >= 0) {
        PolicyTurn turn{sources[size_t(earlier)], refinementFeedback(t.strategies[size_t(earlier)]), false};
        perTask[i].push_back({renderPolicyPrompt(policyMessages(task, {turn}, promptOptions)),
                              candidateAnswer(sources[size_t(answer)]), {}, 0, true, ""});
      }
#ifdef CUDAPERF_HAVE_RL
      if (repair) {
        if (std::optional<RepairChoice> r = chooseRepair(task.task, sources, seed)) {
          PolicyTurn turn{r->broken.source, r->broken.feedback, false};
          perTask[i].push_back({renderPolicyPrompt(policyMessages(task, {turn}, promptOptions)),
                                candidateAnswer(sources[r->implementation]), {}, 0, false,
                                repairMutationName(r->broken.mutation)});
        }
      }
      if (measured) {
        auto found = measured->byTask.find(t.name);
        if (found != measured->byTask.end()) {
          std::map<std::string, std::string> now; // impls/<file> -> sha256 of the dataset's file
          for (size_t k = 0; k < t.implementations.size(); ++k)
            now[fs::path(t.implementations[k]).filename().string()] = support::sha256Hex(sources[k]);
          std::optional<MeasuredPair> pair;
          try {
            pair = chooseMeasuredPair(found->second, now);
          } catch (const std::exception &) { // a stored document the reward cannot read: no measured example
          }
          if (pair) {
            auto source = [&](const std::string &file) {
              for (size_t k = 0; k < t.implementations.size(); ++k)
                if (fs::path(t.implementations[k]).filename().string() == file) return sources[k];
              return std::string();
            };
            PolicyTurn turn{source(pair->slower), pair->feedback, false};
            Example e{renderPolicyPrompt(policyMessages(task, {turn}, promptOptions)), candidateAnswer(source(pair->faster)),
                      {}, 0, false, ""};
            e.measured = true;
            perTask[i].push_back(std::move(e));
          }
        }
      }
#else
      (void)repair, (void)seed, (void)measured;
#endif
    } catch (const std::exception &e) {
      errors[i] = chosen[i]->name + ": " + e.what();
    }
  });
  ExampleSet set;
  for (size_t i = 0; i < chosen.size(); ++i) {
    if (!errors[i].empty()) {
      ++set.skippedTasks;
      if (set.skipReasons.size() < 5) set.skipReasons.push_back(errors[i]);
      continue;
    }
    ++set.tasks;
    for (Example &e : perTask[i]) set.examples.push_back(std::move(e));
  }
  return set;
}

// prompt ids, answer ids, end-of-turn id; the loss covers the answer and the end of turn.
void encodeExamples(std::vector<Example> &examples, const Tokenizer &tokenizer, int32_t endOfTurn) {
  parallelFor(examples.size(), hardwareThreads(), [&](size_t i) {
    Example &e = examples[i];
    e.ids = tokenizer.encode(e.prompt, false);
    e.promptTokens = e.ids.size();
    std::vector<int32_t> answer = tokenizer.encode(e.answer, false);
    e.ids.insert(e.ids.end(), answer.begin(), answer.end());
    e.ids.push_back(endOfTurn);
  });
}

// Micro-batches of similar lengths, each at most `tokens` padded tokens (at least one row).
std::vector<std::vector<size_t>> packByLength(const std::vector<Example> &examples, int64_t tokens) {
  std::vector<size_t> order(examples.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return examples[a].ids.size() < examples[b].ids.size(); });
  std::vector<std::vector<size_t>> batches;
  std::vector<size_t> current;
  for (size_t i : order) {
    int64_t longest = int64_t(examples[i].ids.size()); // sorted: the newest row is the longest
    if (!current.empty() && longest * int64_t(current.size() + 1) > tokens) {
      batches.push_back(current);
      current.clear();
    }
    current.push_back(i);
  }
  if (!current.empty()) batches.push_back(current);
  return batches;
}

int64_t countRefinements(const std::vector<Example> &examples) {
  return std::count_if(examples.begin(), examples.end(), [](const Example &e) { return e.refinement; });
}

int64_t countMeasured(const std::vector<Example> &examples) {
  return std::count_if(examples.begin(), examples.end(), [](const Example &e) { return e.measured; });
}

int64_t countRepairs(const std::vector<Example> &examples, const std::string &mutation) {
  return std::count_if(examples.begin(), examples.end(), [&](const Example &e) {
    return !e.repair.empty() && (mutation.empty() || e.repair == mutation);
  });
}

} // namespace cudaperf::learn::sft
